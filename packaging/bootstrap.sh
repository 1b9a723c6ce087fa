#!/usr/bin/env bash
# The two things a newcomer does on a fresh Debian 12 or 13 machine, each in one command:
#   packaging/bootstrap.sh run    install what is missing, build, start the app on its default lesson
#   packaging/bootstrap.sh test   install what is missing, build, run the whole test suite
# Both are idempotent: a second run only rebuilds what changed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

what=${1:-}
case "$what" in
  run|test) ;;
  *) echo "usage: packaging/bootstrap.sh run|test" >&2; exit 2 ;;
esac

"$here/install-deps.sh"

jobs=$(nproc)
# ccache keys on absolute paths unless told the tree root: two clones then share one cache.
export CCACHE_BASEDIR="$root"
cmake --preset default

if [[ "$what" == run ]]; then
  # Only the app and what it links: the tests and benchmarks (most of the ~420 targets) wait for `test`.
  cmake --build --preset default -j "$jobs" --target ampscope
  shift || true
  exec ./build/app/ampscope "$@"
fi

cmake --build --preset default -j "$jobs"

# Tests: CTest runs the engine, CLI and GUI suites (GUI tests use the offscreen platform by themselves).
ctest --preset default -j "$jobs"
