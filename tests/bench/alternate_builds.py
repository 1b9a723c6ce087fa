#!/usr/bin/python3
"""Compares two builds' ampscope_bench_train on a noisy machine: runs them alternately, round after
round, and prints per mode the plain step, the instruments' cost (instrumented minus plain of the same
binary in the same round, which cancels most of the drift between rounds) and their share of the
instrumented step, as medians over the rounds, plus each emulated mode's plain step against fp32's of
the same run. One thread on both sides, as compare_with_python.sh runs them.

usage: tests/bench/alternate_builds.py BEFORE_BENCH AFTER_BENCH [--rounds N] [--modes a,b,...]
       [--precision-path auto|native|emulated]
--precision-path is passed to both builds: the BF16 modes' path, which auto leaves to each run's
capability probe (where native and emulated run about as fast, runs can differ in their choice).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODES = ["fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure"]


def fail(message):
    print(f"alternate_builds.py: {message}", file=sys.stderr)
    sys.exit(2)


def run(binary, modes, work, path):
    """{(mode, kind): cpu us} of one run of `binary` (medians of 3 repetitions of 0.3 s)."""
    out = os.path.join(work, "run.json")
    pattern = "train_step/(" + "|".join(modes) + ")/(plain|instrumented)$"
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([binary, "--benchmark_filter=" + pattern, "--benchmark_repetitions=3",
                           "--benchmark_min_time=0.3", "--benchmark_report_aggregates_only=true",
                           "--benchmark_format=json", "--benchmark_out=" + out,
                           "--precision-path=" + path],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        fail(f"{binary} exited with {done.returncode}: {done.stderr.strip()[-300:]}")
    times = {}
    for bench in json.load(open(out))["benchmarks"]:
        if bench.get("aggregate_name") == "median" and not bench.get("error_occurred"):
            _, mode, kind = bench["run_name"].split("/")[:3]
            times[(mode, kind)] = bench["cpu_time"]
    missing = [m for m in modes if (m, "plain") not in times or (m, "instrumented") not in times]
    if missing:
        fail(f"{binary} has no plain or instrumented benchmark for --modes {','.join(missing)}")
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--precision-path", default="auto")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    for binary in (args.before, args.after):
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            fail(f"no benchmark binary at {binary}")
    if not 1 <= args.rounds <= 100:
        fail(f"--rounds must be in [1, 100], not {args.rounds}")
    unknown = [m for m in modes if m not in MODES]
    if not modes or unknown:
        fail(f"--modes takes {','.join(MODES)}; unknown: {','.join(unknown) or '(none given)'}")
    if args.precision_path not in ("auto", "native", "emulated"):
        fail(f"--precision-path takes auto, native or emulated, not {args.precision_path}")
    if "fp32" not in modes:
        modes.insert(0, "fp32")  # the emulated modes are read against it

    rounds = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as work:
        for r in range(args.rounds):
            for name, binary in (("before", args.before), ("after", args.after)):
                rounds[name].append(run(binary, modes, work, args.precision_path))
            print(f"round {r + 1} of {args.rounds} done", file=sys.stderr)

    def median(name, value):
        return statistics.median(value(t) for t in rounds[name])

    print(f"{args.rounds} alternating rounds, CPU us, medians over rounds")
    print(f"{'mode':16} {'plain before/after':>20} {'instruments before -> after':>30} "
          f"{'share before -> after':>24} {'x fp32 before/after':>20}")
    for m in modes:
        plain = [median(n, lambda t: t[(m, "plain")]) for n in ("before", "after")]
        cost = [median(n, lambda t: t[(m, "instrumented")] - t[(m, "plain")]) for n in ("before", "after")]
        share = [median(n, lambda t: 100 * (1 - t[(m, "plain")] / t[(m, "instrumented")]))
                 for n in ("before", "after")]
        ratio = [median(n, lambda t: t[(m, "plain")] / t[("fp32", "plain")]) for n in ("before", "after")]
        print(f"{m:16} {plain[0]:9.0f} / {plain[1]:<8.0f} {cost[0]:14.1f} -> {cost[1]:<11.1f} "
              f"{share[0]:10.1f} -> {share[1]:<6.1f} %  {ratio[0]:9.3f} / {ratio[1]:.3f}")


if __name__ == "__main__":
    main()
