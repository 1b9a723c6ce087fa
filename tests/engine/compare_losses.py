#!/usr/bin/python3
"""Runs two ampscope-cli binaries on the same training configurations and says whether their
per-step records agree exactly: loss, loss scale, grad norms, skipped/found-inf/diverged, and on
instrumented steps the histograms, range counts and rounding counts of every tensor. Only what
measures the machine (step time, allocator bytes) is left out.

usage: tests/engine/compare_losses.py BASE_CLI NEW_CLI [--steps N] [--precision-path native|emulated]
                                      [--norm-ulps K]
--precision-path passes the same path to both (the default, auto, lets each binary choose, and two
builds whose emulation differs in speed may choose differently for a BF16 mode).
--norm-ulps K lets the gradient norms (float32 values, as torch's) differ by up to K units in the last
place, for a change to how the norm is summed; everything else must still be identical, and the largest
difference seen is printed.
Exit status 0 when every configuration matches, 1 when any differs, 2 on bad usage.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

ALL_MODES = "fp32,fp16-amp-scaled,fp16-amp,bf16-amp,fp16-pure,bf16-pure"
QUANTIZED_MODES = "fp32,fp8-delayed,fp8-current,mxfp8,nvfp4"
# Per configuration: a name and the train flags (the steps are appended); --modes ALL_MODES unless the
# flags give --modes.
CASES = [
    ("tiny-mlp default", ["--model", "tiny-mlp"]),
    ("deep-mlp preset", ["--model", "deep-mlp"]),
    ("tiny-transformer", ["--model", "tiny-transformer"]),
    ("tiny-mlp sgd clip 0.5 scaler-for-pure-fp16 eps 1e-4",
     ["--model", "tiny-mlp", "--optimizer", "sgd", "--clip", "0.5", "--scaler-for-pure-fp16",
      "--adam-eps", "1e-4"]),
    ("tiny-mlp adamw eps 1e-4 (fp16-pure trains)", ["--model", "tiny-mlp", "--adam-eps", "1e-4"]),
    ("tiny-mlp instrument-every 1", ["--model", "tiny-mlp", "--instrument-every", "1"]),
    ("tiny-mlp sgd momentum 0 clip before-unscale inject-overflow 5",
     ["--model", "tiny-mlp", "--optimizer", "sgd", "--momentum", "0", "--clip-order", "before-unscale",
      "--inject-overflow-at", "5", "--instrument-every", "3"]),
    ("tiny-mlp fp8/mx/nvfp4 instrument-every 3",
     ["--model", "tiny-mlp", "--modes", QUANTIZED_MODES, "--instrument-every", "3"]),
    ("deep-mlp fp8/mx/nvfp4 spike 20 history 8",
     ["--model", "deep-mlp", "--modes", QUANTIZED_MODES, "--spike-step", "20", "--amax-history-len", "8"]),
    ("tiny-transformer fp8/mx/nvfp4 instrument-every 4",
     ["--model", "tiny-transformer", "--modes", QUANTIZED_MODES, "--instrument-every", "4"]),
]
# Fields that measure the machine, not the arithmetic.
IGNORED = {"step-time-ms", "current-bytes", "peak-bytes", "wall-time", "seq"}


def run(cli, flags, steps, path, precision_path):
    modes = [] if "--modes" in flags else ["--modes", ALL_MODES]
    path_flags = [] if precision_path == "auto" else ["--precision-path", precision_path]
    command = [cli, "train"] + modes + ["--steps", str(steps), "--quiet", "--jsonl", path] + flags + path_flags
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cli} failed ({done.returncode}): {done.stderr.strip()}")
    with open(path) as f:
        lines = f.read().splitlines()
    return [json.loads(line) for line in lines[1:]]  # the first line is the header


NORMS = ("grad-norm-before-clip", "grad-norm-after-clip", "clip-norm-seen")


def strip(record):
    return {k: v for k, v in record.items() if k not in IGNORED}


def float_ulps(a, b):
    """How many float32 steps apart two norms are (both must be float32 values; None if not numbers)."""
    if not all(isinstance(v, (int, float)) for v in (a, b)):
        return None if a != b else 0
    def ordered(v):
        bits = struct.unpack("<i", struct.pack("<f", v))[0]
        return bits if bits >= 0 else -(bits & 0x7FFFFFFF)
    return abs(ordered(a) - ordered(b))


def split_norms(a, b, allowed):
    """(a, b) without the norm fields, and the largest ulp distance of those, or a problem string."""
    worst = 0
    for key in NORMS:
        if key in a and key in b:
            ulps = float_ulps(a[key], b[key])
            if ulps is None or ulps > allowed:
                return None, None, f".{key}: {a[key]!r} vs {b[key]!r}"
            worst = max(worst, ulps)
    drop = lambda r: {k: v for k, v in r.items() if k not in NORMS}
    return (drop(a), drop(b), worst) if allowed else (a, b, 0)


def first_difference(a, b, where=""):
    """The path of the first differing value, or None."""
    if type(a) != type(b):
        return f"{where}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{where}.{key}: present on one side only"
            found = first_difference(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    # NaN compares unequal to itself; the record writes it as a string or null, which compare fine.
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--precision-path", choices=["auto", "native", "emulated"], default="auto")
    parser.add_argument("--norm-ulps", type=int, default=0)
    args = parser.parse_args()
    if args.norm_ulps < 0:
        print("compare_losses.py: --norm-ulps must be 0 or more", file=sys.stderr)
        return 2
    for cli in (args.base, args.new):
        if not os.access(cli, os.X_OK):
            print(f"compare_losses.py: {cli} is not an executable", file=sys.stderr)
            return 2
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for name, flags in CASES:
            base = run(args.base, flags, args.steps, os.path.join(work, "base.jsonl"), args.precision_path)
            new = run(args.new, flags, args.steps, os.path.join(work, "new.jsonl"), args.precision_path)
            instrumented = sum(1 for r in base if r.get("instrumented"))
            problem = None
            worst = 0
            if len(base) != len(new):
                problem = f"{len(base)} vs {len(new)} records"
            for i, (a, b) in enumerate(zip(base, new)):
                if problem:
                    break
                a, b, ulps = split_norms(strip(a), strip(b), args.norm_ulps)
                found = ulps if a is None else first_difference(a, b)
                if a is not None:
                    worst = max(worst, ulps)
                if found:
                    problem = f"record {i + 1} ({base[i].get('mode')} step {base[i].get('step')}){found}"
            verdict = "identical" if not problem else f"DIFFERENT: {problem}"
            if not problem and args.norm_ulps:
                verdict += f" (norms within {worst} ulp)"
            print(f"{name:<62} {len(base):5d} records ({instrumented} instrumented)  {verdict}")
            failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
