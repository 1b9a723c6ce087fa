"""Two processes on 127.0.0.1 (gloo, torch.multiprocessing spawn): per-rank streams, the merged
stream, and the merge itself with different tensors on each rank.

torch.distributed.all_reduce with ReduceOp.SUM adds the ranks' tensors (PyTorch's documented
semantics); counts below 2^53 are exact in float64, so merged counts must equal the sums exactly.
"""
import os
import socket
import tempfile
import unittest

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

from ampscope_probe import Probe
from probe_test_support import SmallMLP, add_histograms, read_stream, reference_histogram

WORLD = 2


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def init(rank, port):
    # TCPStore's libuv backend is the default from torch 2.4 on, and Debian 13's torch 2.6 is built
    # without libuv ("use_libuv was requested but PyTorch was build without libuv support"): ask for the
    # other backend unless the caller chose. torch 1.13 has only that backend and ignores the variable.
    os.environ.setdefault("USE_LIBUV", "0")
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=WORLD)
    torch.set_num_threads(1)


def ddp_worker(rank, port, out):
    init(rank, port)
    try:
        torch.manual_seed(0)
        model = torch.nn.parallel.DistributedDataParallel(SmallMLP())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        torch.manual_seed(100 + rank)  # each rank its own batches
        per_rank = Probe(model, optimizer=optimizer, every=5, out=os.path.join(out, "run.jsonl"),
                         ranks="per-rank", name="ddp")
        merged = Probe(model, optimizer=optimizer, every=5, out=os.path.join(out, "merged.jsonl"),
                       ranks="merged", name="ddp")
        for _ in range(12):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(torch.randn(16, 16)), torch.randint(0, 4, (16,)))
            loss.backward()
            per_rank.after_backward(loss)
            merged.after_backward(loss)
            optimizer.step()
            per_rank.after_step()
            merged.after_step()
        per_rank.close()
        merged.close()
    finally:
        dist.destroy_process_group()


class Three(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.zeros(100))
        self.b = torch.nn.Parameter(torch.zeros(37))
        self.c = torch.nn.Parameter(torch.zeros(5))


def local_gradients(rank):
    """Different on each rank: rank 0 has a NaN in a and no gradient for c, rank 1 an inf in b."""
    g = torch.Generator().manual_seed(rank)
    grads = {"a": torch.randn(100, generator=g) * 2.0 ** (-20 * rank),
             "b": torch.randn(37, generator=g) * 1e4 * (rank + 1), "c": None}
    if rank == 0:
        grads["a"][3] = float("nan")
    else:
        grads["b"][0] = float("inf")
        grads["c"] = torch.full((5,), 2.0 ** -130)
    return grads


def merge_worker(rank, port, out):
    init(rank, port)
    try:
        model = Three()
        probe = Probe(model, every=1, out=os.path.join(out, "merge.jsonl"), name="merge")
        for name, grad in local_gradients(rank).items():
            getattr(model, name).grad = grad
        probe.after_backward(torch.tensor(1.0 + 2.0 * rank))
        probe.after_step()
        probe.close()
    finally:
        dist.destroy_process_group()


def spawn(worker, out):
    mp.spawn(worker, args=(free_port(), out), nprocs=WORLD, join=True)


class Distributed(unittest.TestCase):
    def test_ddp_per_rank_and_merged_streams(self):
        with tempfile.TemporaryDirectory() as out:
            spawn(ddp_worker, out)
            self.assertEqual(sorted(os.listdir(out)), ["merged.jsonl", "run.rank0.jsonl", "run.rank1.jsonl"])
            streams = [read_stream(os.path.join(out, "run.rank%d.jsonl" % r)) for r in range(WORLD)]
            merged_header, merged = read_stream(os.path.join(out, "merged.jsonl"))
        for rank, (header, records) in enumerate(streams):
            self.assertEqual((header["rank"], header["world-size"], header["ranks"]), (rank, 2, "per-rank"))
            self.assertEqual([r["step"] for r in records], [1, 6, 11])
        self.assertEqual((merged_header["rank"], merged_header["world-size"], merged_header["ranks"]),
                         (0, 2, "merged"))
        self.assertNotEqual(streams[0][0]["run-id"], merged_header["run-id"])
        self.assertEqual([r["step"] for r in merged], [1, 6, 11])
        for i, record in enumerate(merged):
            r0, r1 = streams[0][1][i], streams[1][1][i]
            self.assertEqual(record["loss"], (r0["loss"] + r1["loss"]) / 2)
            for t, t0, t1 in zip(record["tensors"], r0["tensors"], r1["tensors"]):
                self.assertEqual(t["numel"], t0["numel"] + t1["numel"])
                for side in ("scaled", "unscaled"):
                    self.assertEqual(t[side], add_histograms(t0[side], t1[side]), (i, t["name"], side))

    def test_merge_of_different_tensors(self):
        with tempfile.TemporaryDirectory() as out:
            spawn(merge_worker, out)
            self.assertEqual(os.listdir(out), ["merge.jsonl"])  # rank 1 writes nothing
            header, records = read_stream(os.path.join(out, "merge.jsonl"))
        self.assertEqual((header["rank"], header["world-size"], header["ranks"]), (0, 2, "merged"))
        self.assertEqual(len(records), 1)
        record = records[0]
        self.assertEqual(record["loss"], 2.0)  # mean of 1 and 3
        self.assertEqual(record["nonfinite"], ["a", "b"])  # union, module order
        self.assertTrue(record["found-inf"])
        grads = [local_gradients(r) for r in range(WORLD)]
        tensors = {t["name"]: t for t in record["tensors"]}
        self.assertEqual(sorted(tensors), ["a", "b", "c"])
        for name in ("a", "b", "c"):
            present = [g[name] for g in grads if g[name] is not None]
            want = reference_histogram(present[0].tolist())
            for more in present[1:]:
                want = add_histograms(want, reference_histogram(more.tolist()))
            self.assertEqual(tensors[name]["scaled"], want, name)
            self.assertEqual(tensors[name]["numel"], sum(g.numel() for g in present))
        # c has a gradient on rank 1 only: 5 values of 2^-130, flushed in FP16, subnormal in BF16.
        self.assertEqual(tensors["c"]["scaled"]["formats"]["bf16"]["subnormal"], 5)
        self.assertEqual(tensors["c"]["scaled"]["formats"]["fp16"]["flushed"], 5)


if __name__ == "__main__":
    unittest.main()
