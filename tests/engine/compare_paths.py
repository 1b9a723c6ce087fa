#!/usr/bin/python3
"""The native-vs-emulated table: trains every FP16 and BF16 mode of each model twice with one
ampscope-cli, `--precision-path native` and `--precision-path emulated`, from the same weights and
batches, and compares every record field (step time and allocator bytes left out, as they measure the
machine; the rounding-point counts `rounding` and `rounding-points` too unless --all-fields, as the two
paths count at different places by construction: telemetry, not arithmetic). Per model and mode it prints: identical, or the first step and field that differ and the
largest loss difference over the run; modes without a native path in this LibTorch say so.

usage: tests/engine/compare_paths.py CLI [--steps N] [--models tiny-mlp,deep-mlp,tiny-transformer]
                                         [--optimizer adamw|sgd] [--markdown] [--all-fields]
Exit status 0 when it ran (differences are findings, not failures), 2 on bad usage or a failed run.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_losses import first_difference, strip  # noqa: E402  (one record comparison for both tools)

MODES = ["fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure"]


def cpu_line():
    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not model and line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                if not flags and line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
    except OSError:
        pass
    wanted = ["avx2", "fma", "f16c", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_tile"]
    return f"{model or platform.processor()}; features: " + " ".join(f for f in wanted if f in flags)


def run(cli, model, mode, path, steps, optimizer, out):
    command = [cli, "train", "--model", model, "--modes", mode, "--steps", str(steps), "--quiet",
               "--precision-path", path, "--jsonl", out]
    if optimizer:
        command += ["--optimizer", optimizer]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    with open(out) as f:
        lines = f.read().splitlines()
    return [json.loads(line) for line in lines[1:]]


def native_modes(cli):
    done = subprocess.run([cli, "kernels", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{cli} kernels failed: {done.stderr.strip()}")
    report = json.loads(done.stdout)
    return report["libtorch"], {m["mode"]: m for m in report["modes"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cli")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--models", default="tiny-mlp,deep-mlp,tiny-transformer")
    parser.add_argument("--optimizer", default="")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--all-fields", action="store_true",
                        help="compare the rounding-point counts too (they differ between the paths by construction)")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("--steps must be >= 1")
    libtorch, modes = native_modes(args.cli)
    print(f"LibTorch {libtorch}; CPU: {cpu_line()}; {args.steps} steps"
          + (f"; optimizer {args.optimizer}" if args.optimizer else "")
          + ("" if args.all_fields else "; rounding-point counts not compared"))
    counts = () if args.all_fields else ("rounding", "rounding-points")
    compared = lambda record: {k: v for k, v in strip(record).items() if k not in counts}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            for mode in MODES:
                info = modes.get(mode, {})
                if not info.get("native-available", False):
                    why = "no native path" if not info.get("native-failed-check") else "native failed its self-check"
                    rows.append((model, mode, f"emulated only ({why})", "", ""))
                    continue
                a = run(args.cli, model, mode, "native", args.steps, args.optimizer, os.path.join(tmp, "n.jsonl"))
                b = run(args.cli, model, mode, "emulated", args.steps, args.optimizer, os.path.join(tmp, "e.jsonl"))
                first, field, worst = None, "", 0.0
                for ra, rb in zip(a, b):
                    la, lb = ra.get("loss"), rb.get("loss")
                    if isinstance(la, (int, float)) and isinstance(lb, (int, float)):
                        worst = max(worst, abs(la - lb))
                    found = first_difference(compared(ra), compared(rb))
                    if found and first is None:
                        first, field = ra.get("step"), found[:70]
                verdict = "identical" if first is None and len(a) == len(b) else f"differs from step {first}"
                rows.append((model, mode, verdict, field, f"{worst:.3g}" if first is not None else "0"))
    header = ("model", "mode", "native vs emulated", "first differing field", "largest loss difference")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
        for row in [header] + rows:
            print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
