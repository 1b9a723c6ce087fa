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

Not part of the test suite (it takes minutes):
    tests/bench/journal_kill9.py build/tests/bench/ampscope_session_bench [--rounds 20] [--seed 1]
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


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


def one_round(bench, delay, keep):
    home = tempfile.mkdtemp(prefix="ampscope-kill9-")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               XDG_DATA_HOME=os.path.join(home, "data"), XDG_CONFIG_HOME=os.path.join(home, "config"),
               XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_RUNTIME_DIR=home)
    step_log = os.path.join(home, "steps.log")
    process = subprocess.Popen([bench, "journal-run", step_log], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    try:
        journal = process.stdout.readline().strip()
        if not wait_for_first_step(step_log, process, 300):
            raise RuntimeError("training did not start")
        time.sleep(delay)
        killed_at = time.time()
        process.send_signal(signal.SIGKILL)
        process.wait()
        steps = read_step_log(step_log)
        read = subprocess.run([bench, "journal-read", journal], env=env, capture_output=True, text=True)
        if read.returncode != 0:
            return {"delay": delay, "error": read.stderr.strip() or "journal-read failed"}
        lines = read.stdout.splitlines()
        records, last_step = (int(x) for x in lines[0].split())
        torn = any(line.startswith("note:") for line in lines[1:])
        # The batch that brought the last recovered step: the first log line at or past it.
        reached = next((wall for step, wall in steps if step >= last_step), None) if last_step > 0 else None
        first_wall = steps[0][1] if steps else killed_at
        return {
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
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{'round':>5} {'kill after':>10} {'trained to':>10} {'recovered':>9} {'lost (s)':>8}  torn line")
    losses = []
    for i in range(1, args.rounds + 1):
        r = one_round(args.bench, rng.uniform(args.min_delay, args.max_delay), args.keep)
        if "error" in r:
            print(f"{i:>5} {r['delay']:>9.2f}s  journal did not recover: {r['error']}")
            continue
        losses.append(r["lost"])
        print(f"{i:>5} {r['delay']:>9.2f}s {r['trained']:>10} {r['recovered']:>9} {r['lost']:>8.3f}  "
              f"{'yes (dropped)' if r['torn'] else 'no'}", flush=True)
    if not losses:
        return 1
    print(f"recovered {len(losses)} of {args.rounds}; loss: largest {max(losses):.3f} s, "
          f"mean {sum(losses) / len(losses):.3f} s")
    return 0 if len(losses) == args.rounds else 1


if __name__ == "__main__":
    sys.exit(main())
