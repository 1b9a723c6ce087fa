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
# One thread everywhere: ATen's OpenMP pool and OpenBLAS's own pthreads (which spin in sched_yield
# and steal the second core on a 2-core machine), on both sides alike.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
"$bench" --benchmark_format=json --benchmark_out="$work/cpp.json" \
  --benchmark_out_format=json --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  > "$work/cpp.log"
echo "running $here/python_reference_step.py ..."
"$python" "$here/python_reference_step.py" --steps "$steps" --threads 1 > "$work/python.txt"

"$python" - "$work/cpp.json" "$work/python.txt" <<'PY'
import json
import sys

# (mode, plain|instrumented) -> (wall us, cpu us): medians over Google Benchmark's repetitions.
cpp = {}
labels = {}
for bench in json.load(open(sys.argv[1]))["benchmarks"]:
    if bench.get("aggregate_name") != "median" or bench.get("error_occurred"):
        continue
    # train_step/<mode>/<plain|instrumented>[/min_time:...]
    _, mode, kind = bench["run_name"].split("/")[:3]
    cpp[(mode, kind)] = (bench["real_time"], bench["cpu_time"])  # microseconds
    labels[mode] = bench.get("label", "")

python = {}
for line in open(sys.argv[2]):
    if line.startswith("#"):
        print(line.strip())
        continue
    _, mode, wall_us, _, cpu_us, _ = line.split()
    python[mode] = (float(wall_us), float(cpu_us))

modes = ["fp32", "fp16-amp-scaled", "fp16-amp", "bf16-amp", "fp16-pure", "bf16-pure"]
WALL, CPU = 0, 1
print("\nmicroseconds per step, wall (cpu); instr. % = instruments' share of the instrumented step")
print(f"{'mode':<16}{'kind':>9}{'plain':>16}{'instrumented':>16}{'instr. %':>10}{'python':>16}{'C++/Py':>12}")
for mode in modes:
    plain, instr = cpp.get((mode, "plain")), cpp.get((mode, "instrumented"))
    if plain is None or instr is None:
        print(f"{mode:<16} (no result: see the benchmark log)")
        continue
    share = 100.0 * (instr[CPU] - plain[CPU]) / instr[CPU]
    py = python.get(mode)
    pys = f"{py[WALL]:7.0f} ({py[CPU]:5.0f})" if py else ""
    ratio = f"{instr[WALL] / py[WALL]:5.2f} ({instr[CPU] / py[CPU]:4.2f})" if py else ""
    print(f"{mode:<16}{labels.get(mode, ''):>9}{plain[WALL]:8.0f} ({plain[CPU]:5.0f}){instr[WALL]:8.0f} "
          f"({instr[CPU]:5.0f}){share:9.1f}%{pys:>16}{ratio:>12}")

def verdict(ok):
    return "met" if ok else "NOT met"

print("\ntargets (judged on CPU time; wall time in brackets):")
for mode in ("fp32", "bf16-amp"):
    if (mode, "instrumented") in cpp and mode in python:
        c, p = cpp[(mode, "instrumented")], python[mode]
        r = c[CPU] / p[CPU]
        print(f"  instrumented C++/Python {mode:<16} {r:5.2f} ({c[WALL] / p[WALL]:4.2f})  <= 0.50 {verdict(r <= 0.5)}")
for mode in modes:
    if (mode, "plain") in cpp and (mode, "instrumented") in cpp:
        p, i = cpp[(mode, "plain")], cpp[(mode, "instrumented")]
        share = (i[CPU] - p[CPU]) / i[CPU]
        print(f"  instruments' share {mode:<16} {100 * share:5.1f} %  <= 15 % {verdict(share <= 0.15)}")
if ("fp32", "plain") in cpp:
    base = cpp[("fp32", "plain")]
    for mode in ("fp16-amp-scaled", "fp16-amp", "fp16-pure"):
        if (mode, "plain") in cpp:
            c = cpp[(mode, "plain")]
            r = c[CPU] / base[CPU]
            print(f"  {mode} ({labels.get(mode, '')}) / fp32 {r:5.2f} ({c[WALL] / base[WALL]:4.2f})  "
                  f"<= 1.5 {verdict(r <= 1.5)}")
PY
