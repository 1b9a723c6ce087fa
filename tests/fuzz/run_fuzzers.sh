#!/usr/bin/env bash
# Builds the "fuzz" preset and runs every libFuzzer target for SECONDS each (default 60), one after the
# other. Each target starts from its seeds (tests/fuzz/corpus/<target>/, and the record fixtures or the
# shipped lessons where they fit) and grows a working corpus in build-fuzz/corpus/<target>/, kept between
# runs. Prints the CPU seconds each target used and its corpus size. A crash, a leak, a timeout or an out-of-memory input fails
# the script (exit 1); the input is left in build-fuzz/artifacts/.
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS]    (MAX_LEN and RSS_LIMIT_MB override the limits)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

seconds=${1:-60}
max_len=${MAX_LEN:-65536}
rss_limit_mb=${RSS_LIMIT_MB:-2048}
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "run_fuzzers: SECONDS must be a positive whole number, not '$seconds'" >&2
  exit 2
fi

export CCACHE_BASEDIR=$PWD
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

fixtures=tests/engine/data/fixtures/records
build=build-fuzz
mkdir -p "$build/artifacts"

# target, then its extra seed folders
targets=(
  "number_json_fuzzer $fixtures"
  "config_schema_fuzzer"
  "session_codec_fuzzer $fixtures"
  "record_codec_fuzzer $fixtures"
  "record_stream_reader_fuzzer $fixtures"
  "lesson_fuzzer resources/lessons"
)

failed=()
summary=()
for entry in "${targets[@]}"; do
  read -r target seeds <<<"$entry"
  if [[ ! -x $build/tests/fuzz/$target ]]; then
    # lesson_fuzzer needs QtCore; the build says when it left it out.
    echo "== $target: not built, skipped"
    summary+=("$(printf '%-27s not built (QtCore missing)' "$target")")
    continue
  fi
  corpus=$build/corpus/$target
  mkdir -p "$corpus"
  log=$build/artifacts/$target.log
  echo "== $target: ${seconds} s"
  # CPU seconds of the fuzzer (user + system), from the shell's `time`.
  status=0
  TIMEFORMAT='%U %S'
  { time "$build/tests/fuzz/$target" "$corpus" "tests/fuzz/corpus/$target" $seeds \
      -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb="$rss_limit_mb" -timeout=10 \
      -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 >"$log" 2>&1 || status=$?; } \
      2>"$build/artifacts/$target.time"
  cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$build/artifacts/$target.time")
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  line=$(printf '%-27s cpu %7s s  runs %10s  corpus %5d files %9d bytes' "$target" "$cpu" "$execs" "$files" "$bytes")
  if [[ $status -ne 0 ]]; then
    line+="  FAILED (exit $status, see $log)"
    failed+=("$target")
    grep -E '(==[0-9]+== ?ERROR|^SUMMARY|runtime error)' "$log" | head -n 5 >&2 || true
  fi
  echo "$line"
  summary+=("$line")
done

echo
echo "== fuzz summary (${seconds} s per target, max_len $max_len, rss limit $rss_limit_mb MB)"
printf '%s\n' "${summary[@]}"
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "run_fuzzers: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
