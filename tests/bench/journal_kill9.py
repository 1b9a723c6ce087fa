#!/usr/bin/env python3
"""kill -9 during a six-mode run, N times: how much telemetry does the autosave journal lose?

Each round starts `ampscope_session_bench journal-run` (the real main window and session controller,
offscreen, the tiny MLP in all six precision modes, its own XDG folders), waits until training is under
way plus a random delay, kills it with SIGKILL, and recovers the journal it left as the next start would
(`journal-read`). The loss is the kill time minus the wall time at which the last recovered step reached
the session (the run's step log, written with one write(2) per batch, survives the kill). The journal
is written every quarter second (what is written survives a killed process; fsync, once a second, is for
power cuts), so each loss should stay under about a quarter second plus one write. Steps the engine had
made but not yet handed to the session are not counted: no journal could hold them.

With --follow the window also follows a training script's TCP stream (a probe stream this script
serves on 127.0.0.1 at --rate records per second, seq and wall-time in every record), and each round
also reports the followed run: the steps recovered, its loss (the kill time minus the wall time at which
the last recovered seq reached the window, from the window's own follow log) and seqs recovered twice.

Not part of the test suite (it takes minutes):
    tests/bench/journal_kill9.py build/tests/bench/ampscope_session_bench [--rounds 20] [--seed 1] [--follow]
"""
import argparse
import os
import random
import json
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time


class ProbeServer:
    """A training script's probe, as far as the viewer can tell: a version 3 record stream over TCP."""

    def __init__(self, rate):
        self.rate = rate
        self.sent = 0
        self.stop = threading.Event()
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(4)
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.run_id = os.urandom(8).hex()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def header(self):
        return json.dumps({"format": "ampscope-records", "version": 3, "app": "journal_kill9.py", "source": "probe",
                           "run": "kill9", "run-id": self.run_id, "rank": 0, "world-size": 1, "ranks": "single",
                           "device": "cpu", "torch": "none", "every": 1, "parameters": []},
                          separators=(",", ":")) + "\n"

    def record(self, seq):
        return json.dumps({"mode": "fp16-amp-scaled", "step": seq, "loss": 1.0 / seq, "loss-scale": 65536,
                           "skipped": False, "found-inf": False, "grad-norm-before-clip": 1.0,
                           "grad-norm-after-clip": 1.0, "clip-norm-seen": 1.0, "lr": 0.1, "step-time-ms": 1.0,
                           "current-bytes": 0, "peak-bytes": 0, "diverged": False, "instrumented": False,
                           "seq": seq, "wall-time": time.time()}, separators=(",", ":")) + "\n"

    def serve(self):
        while not self.stop.is_set():
            try:
                client, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                client.sendall(self.header().encode())
                # The probe resends what it has (here: everything) to a new client, then goes on.
                for seq in range(1, self.sent + 1):
                    client.sendall(self.record(seq).encode())
                start = time.time()
                first = self.sent
                while not self.stop.is_set():
                    due = first + int((time.time() - start) * self.rate)
                    while self.sent < due:
                        self.sent += 1
                        client.sendall(self.record(self.sent).encode())
                    time.sleep(0.002)
            except OSError:
                pass
            finally:
                client.close()

    def close(self):
        self.stop.set()
        self.listener.close()
        self.thread.join(timeout=2)


def wait_for_first_step(step_log, process, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if process.poll() is not None:
            return False
        if os.path.exists(step_log) and os.path.getsize(step_log) > 0:
            return True
        time.sleep(0.05)
    return False


def read_step_log(step_log):
    rows = []
    with open(step_log) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and line.endswith("\n"):
                rows.append((int(parts[0]), float(parts[1])))
    return rows


def one_round(bench, delay, keep, rate=None):
    home = tempfile.mkdtemp(prefix="ampscope-kill9-")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_DATA_HOME=os.path.join(home, "data"), XDG_CONFIG_HOME=os.path.join(home, "config"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_RUNTIME_DIR=home)
    step_log = os.path.join(home, "steps.log")
    follow_log = os.path.join(home, "follow.log")
    server = ProbeServer(rate) if rate else None
    command = [bench, "journal-run", step_log]
    if server:
        command += [f"127.0.0.1:{server.port}", follow_log]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        journal = process.stdout.readline().strip()
        if not wait_for_first_step(step_log, process, 300):
            raise RuntimeError("training did not start")
        time.sleep(delay)
        killed_at = time.time()
        process.send_signal(signal.SIGKILL)
        process.wait()
        sent = server.sent if server else 0
        steps = read_step_log(step_log)
        read = subprocess.run([bench, "journal-read", journal], env=env, capture_output=True, text=True)
        if read.returncode != 0:
            return {"delay": delay, "error": read.stderr.strip() or "journal-read failed"}
        lines = read.stdout.splitlines()
        records, last_step = (int(x) for x in lines[0].split())
        torn = any(line.startswith("note:") for line in lines[1:])
        followed = [tuple(int(x) for x in line.split()[1:]) for line in lines[1:] if line.startswith("followed ")]
        # The batch that brought the last recovered step: the first log line at or past it.
        reached = next((wall for step, wall in steps if step >= last_step), None) if last_step > 0 else None
        first_wall = steps[0][1] if steps else killed_at
        result = {}
        if server:
            arrivals = read_step_log(follow_log)
            steps_back, last_seq, twice = followed[0] if followed else (0, 0, 0)
            reached_f = next((wall for seq, wall in arrivals if seq >= last_seq), None) if last_seq > 0 else None
            result = {"sent": sent, "f_arrived": arrivals[-1][0] if arrivals else 0, "f_recovered": last_seq,
                      "f_steps": steps_back, "f_twice": twice, "f_runs": len(followed),
                      "f_lost": killed_at - (reached_f if reached_f is not None
                                             else (arrivals[0][1] if arrivals else killed_at))}
        return {
            **result,
            "delay": delay,
            "trained": steps[-1][0] if steps else 0,
            "recovered": last_step,
            "records": records,
            "lost": killed_at - (reached if reached is not None else first_wall),
            "torn": torn,
        }
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if server:
            server.close()
        if not keep:
            shutil.rmtree(home, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", help="path of ampscope_session_bench")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-delay", type=float, default=1.0, help="seconds after the first step, at least")
    parser.add_argument("--max-delay", type=float, default=10.0)
    parser.add_argument("--keep", action="store_true", help="keep each round's folder")
    parser.add_argument("--follow", action="store_true", help="also follow a TCP probe stream")
    parser.add_argument("--rate", type=float, default=100.0, help="the stream's records per second")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    follow_head = f" {'sent':>6} {'arrived':>7} {'f. back':>7} {'f. lost':>7} {'twice':>5}" if args.follow else ""
    print(f"{'round':>5} {'kill after':>10} {'trained to':>10} {'recovered':>9} {'lost (s)':>8}{follow_head}  torn line")
    losses = []
    follow_losses = []
    twice = 0
    for i in range(1, args.rounds + 1):
        r = one_round(args.bench, rng.uniform(args.min_delay, args.max_delay), args.keep,
                      args.rate if args.follow else None)
        if "error" in r:
            print(f"{i:>5} {r['delay']:>9.2f}s  journal did not recover: {r['error']}")
            continue
        losses.append(r["lost"])
        follow_cols = ""
        if args.follow:
            follow_losses.append(r["f_lost"])
            twice += r["f_twice"]
            follow_cols = (f" {r['sent']:>6} {r['f_arrived']:>7} {r['f_recovered']:>7} {r['f_lost']:>7.3f}"
                           f" {r['f_twice']:>5}")
        print(f"{i:>5} {r['delay']:>9.2f}s {r['trained']:>10} {r['recovered']:>9} {r['lost']:>8.3f}{follow_cols}  "
              f"{'yes (dropped)' if r['torn'] else 'no'}", flush=True)
    if not losses:
        return 1
    print(f"recovered {len(losses)} of {args.rounds}; loss: largest {max(losses):.3f} s, "
          f"mean {sum(losses) / len(losses):.3f} s")
    if args.follow:
        print(f"followed run: loss largest {max(follow_losses):.3f} s, mean "
              f"{sum(follow_losses) / len(follow_losses):.3f} s; seqs recovered twice: {twice}")
    return 0 if len(losses) == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())
