"""The TCP transport: a late viewer gets the header and the kept history, then live lines; a viewer
that never reads does not hold training up (its lines are dropped and counted); the default bind
address is the loopback. Also the probe's argument checks and the file transport's refusal to
overwrite."""
import os
import socket
import tempfile
import time
import unittest

import torch

from ampscope_probe import Probe
from probe_test_support import read_lines, read_stream


class Wide(torch.nn.Module):
    """Many small parameters, so every record is a long line."""

    def __init__(self, layers):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(layers))


def fake_step(probe, model, step):
    for p in model.parameters():
        p.grad = torch.full_like(p, float(step))
    probe.after_backward(torch.tensor(float(step)))
    probe.after_step()


def receive_lines(sock, count, timeout=10.0):
    sock.settimeout(timeout)
    data = b""
    while data.count(b"\n") < count:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8")


class Tcp(unittest.TestCase):
    def test_late_viewer_gets_header_history_then_live_lines(self):
        model = Wide(2)
        with Probe(model, every=1, out="tcp://:0", history=3, name="tcp") as probe:
            host, port = probe.address
            self.assertEqual(host, "127.0.0.1")
            for step in range(1, 6):
                fake_step(probe, model, step)
            with socket.create_connection((host, port)) as viewer:
                header, records = read_lines(receive_lines(viewer, 4))
                self.assertEqual((header["format"], header["run"]), ("ampscope-records", "tcp"))
                self.assertEqual([r["step"] for r in records], [3, 4, 5])  # the last `history` lines
                self.assertEqual([r["seq"] for r in records], [3, 4, 5])
                fake_step(probe, model, 6)
                _, live = read_lines("{}\n" + receive_lines(viewer, 1))
                self.assertEqual([r["step"] for r in live], [6])
                self.assertLessEqual(live[0]["wall-time"], time.time())
            self.assertEqual(probe.dropped, 0)

    def test_a_viewer_that_never_reads_does_not_block_training(self):
        model = Wide(8)
        for p in model.parameters():  # random bit patterns: every exponent bin is filled, lines are long
            p.grad = torch.randint(-2 ** 31, 2 ** 31 - 1, p.shape, dtype=torch.int32).view(torch.float32)
        with Probe(model, every=1, out="tcp://127.0.0.1:0", history=0, queue_lines=4) as probe:
            viewer = socket.socket()
            viewer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            viewer.connect(probe.address)
            for _ in range(300):  # about 100 kB a line, 30 MB in all: more than socket buffers hold
                probe.after_backward(torch.tensor(1.0))
                probe.after_step()
            self.assertEqual(probe.step, 300)
            self.assertGreater(probe.dropped, 0)
        viewer.close()

    def test_explicit_address(self):
        model = Wide(1)
        with Probe(model, out="tcp://[::1]:0" if socket.has_ipv6 else "tcp://127.0.0.1:0") as probe:
            self.assertIn(probe.address[0], ("::1", "127.0.0.1"))


class Arguments(unittest.TestCase):
    def test_bad_arguments_name_the_argument(self):
        model = torch.nn.Linear(2, 2)
        cases = [({"every": 0}, "every"), ({"every": 1.5}, "every"), ({"mode": "fp64"}, "mode"),
                 ({"ranks": "all"}, "ranks"), ({"out": "udp://x:1"}, "out"), ({"out": "tcp://x"}, "out"),
                 ({"out": "tcp://127.0.0.1:70000"}, "out"), ({"out": None}, "out"),
                 ({"history": -1}, "history")]
        for kwargs, argument in cases:
            kwargs.setdefault("out", "tcp://127.0.0.1:0")
            with self.subTest(**{k: str(v) for k, v in kwargs.items()}):
                with self.assertRaises(ValueError) as caught:
                    Probe(model, **kwargs).close()
                self.assertTrue(str(caught.exception).startswith(argument + ":"), str(caught.exception))
        with self.assertRaises(ValueError):
            Probe("not a model", out="tcp://127.0.0.1:0")

    def test_an_existing_file_is_not_overwritten(self):
        model = torch.nn.Linear(2, 2)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "run.jsonl")
            with open(path, "w") as f:
                f.write("mine\n")
            with self.assertRaises(FileExistsError):
                Probe(model, out=path)
            with open(path) as f:
                self.assertEqual(f.read(), "mine\n")
            with Probe(model, out=path, overwrite=True, name="again") as probe:
                self.assertEqual(probe.destination, path)
            header, records = read_stream(path)
            self.assertEqual((header["run"], records), ("again", []))


if __name__ == "__main__":
    unittest.main()
