#!/bin/sh
# Runs ampscope_bench_train and the chapter's Python step (python_reference_step.py, Debian's
# python3-torch) in one go and prints: C++/Python per mode, the instruments' share of the C++ step,
# and emulated FP16 against FP32. Targets (issue 3): instrumented C++ <= 0.5x Python for fp32 and
# bf16-amp; instruments <= 15 % of the step; emulated fp16 <= 1.5x fp32.
#
# usage: tests/bench/compare_with_python.sh [path/to/ampscope_bench_train] [python steps per repetition]
# Timings on a shared 2-core machine are noisy: run it when nothing else builds (the load average is
# printed first).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build/tests/bench/ampscope_bench_train}
steps=${2:-2000}
python=/usr/bin/python3   # Debian's python3-torch; the python3 on PATH may lack torch

if [ ! -x "$bench" ]; then
  echo "compare_with_python.sh: no benchmark binary at $bench (build the ampscope_bench_train target)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); libblas.so.3 -> $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo '?')"
echo "running $bench ..."
OMP_NUM_THREADS=1 "$bench" --benchmark_format=json --benchmark_out="$work/cpp.json" \
  --benchmark_out_format=json --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  > "$work/cpp.log"
echo "running $here/python_reference_step.py ..."
OMP_NUM_THREADS=1 "$python" "$here/python_reference_step.py" --steps "$steps" --threads 1 > "$work/python.txt"

"$python" - "$work/cpp.json" "$work/python.txt" <<'PY'
import json
import sys

cpp = {}
labels = {}
for bench in json.load(open(sys.argv[1]))["benchmarks"]:
    if bench.get("aggregate_name") != "median":
        continue
    if bench.get("error_occurred"):
        continue
    name = bench["run_name"]  # train_step/<mode>/<plain|instrumented>
    _, mode, kind = name.split("/")
    cpp[(mode, kind)] = bench["real_time"]  # microseconds (Unit kMicrosecond)
    labels[mode] = bench.get("label", "")

python = {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        print(line.strip())
        continue
    _, mode, mean_us, median_us, _ = line.split()
    python[mode] = float(mean_us)

modes = ["fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure"]
print()
print(f"{'mode':<17}{'kind':>9}{'plain us':>10}{'instr. us':>11}{'instr. %':>10}{'python us':>11}{'C++/Py':>8}")
for mode in modes:
    plain = cpp.get((mode, "plain"))
    instr = cpp.get((mode, "instrumented"))
    if plain is None or instr is None:
        print(f"{mode:<17} (no result: see the benchmark log)")
        continue
    overhead = 100.0 * (instr - plain) / instr
    py = python.get(mode)
    ratio = f"{instr / py:8.2f}" if py else f"{'':>8}"
    pys = f"{py:11.0f}" if py else f"{'':>11}"
    print(f"{mode:<17}{labels.get(mode, ''):>9}{plain:10.0f}{instr:11.0f}{overhead:9.1f}%{pys}{ratio}")

print()
print("targets: instrumented C++/Python <= 0.50 (fp32, bf16-amp); instruments <= 15 % of the step;")
print("         emulated fp16 / fp32 <= 1.5")
for mode in ("fp32", "bf16-amp"):
    if (mode, "instrumented") in cpp and mode in python:
        r = cpp[(mode, "instrumented")] / python[mode]
        print(f"  C++/Python {mode:<16} {r:5.2f}  {'met' if r <= 0.5 else 'NOT met'}")
for mode in modes:
    if (mode, "plain") in cpp and (mode, "instrumented") in cpp:
        share = (cpp[(mode, "instrumented")] - cpp[(mode, "plain")]) / cpp[(mode, "instrumented")]
        print(f"  instruments {mode:<16} {100 * share:5.1f} %  {'met' if share <= 0.15 else 'NOT met'}")
if ("fp32", "plain") in cpp:
    for mode in ("fp16-amp-scaled", "fp16-amp", "fp16-pure"):
        if (mode, "plain") in cpp:
            r = cpp[(mode, "plain")] / cpp[("fp32", "plain")]
            print(f"  {mode:<16}/ fp32 {r:5.2f} ({labels.get(mode, '')})  {'met' if r <= 1.5 else 'NOT met'}")
PY
