#!/usr/bin/env bash
# Smoke test of the Debian package, as a user meets it: build the .deb, install it with apt, run the
# installed programs (the GUI headless), remove it, and check nothing of it is left behind.
# Usage (as root, on a disposable machine or CI): packaging/smoke-test.sh BUILD_DIR
# BUILD_DIR is a configured AmpScope build tree; its `package` target builds everything first
# (CMAKE_BUILD_PARALLEL_LEVEL limits the jobs, as for any `cmake --build`).
# Leaves the system as it found it: the package is removed at the end, also when a check fails.
set -euo pipefail

build_dir=${1:-}
if [[ -z "$build_dir" || ! -f "$build_dir/CMakeCache.txt" ]]; then
  echo "usage: $0 BUILD_DIR   (a configured AmpScope build directory)" >&2
  exit 2
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "smoke-test: must run as root (it installs and removes a system package)" >&2
  exit 2
fi
build_dir=$(cd "$build_dir" && pwd)
pkg=ampscope
export DEBIAN_FRONTEND=noninteractive

step() { printf '\n== smoke-test: %s\n' "$*"; }
fail() { printf 'smoke-test: FAIL: %s\n' "$*" >&2; exit 1; }

if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
  fail "$pkg is already installed; remove it first so the test starts from a clean system"
fi

step "building the package target in $build_dir"
cmake --build "$build_dir" --target package
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
deb="$build_dir/${pkg}_${version}_$(dpkg --print-architecture).deb"
[[ -f "$deb" ]] || fail "expected $deb after the package target"
ls -l "$deb"
if command -v lintian >/dev/null; then
  step "lintian (fails on errors; warnings and infos are listed)"
  lintian --pedantic --display-info --fail-on error "$deb" || fail "lintian reports errors on $deb"
fi

work=$(mktemp -d)
removed=0
cleanup() {
  if [[ $removed -eq 0 ]] && dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q installed; then
    echo "smoke-test: removing $pkg after a failure"
    apt-get remove -y "$pkg" >/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

step "apt-get install $deb"
apt-get install -y --no-install-recommends "$deb"
dpkg-query -W -f='${Package} ${Version} ${Status}\n' "$pkg"
dpkg -L "$pkg" | sort > "$work/files"
# Files only (directories such as /usr/bin are shared with other packages).
while IFS= read -r f; do [[ -f "$f" && ! -L "$f" ]] && echo "$f"; done < "$work/files" > "$work/owned"
echo "installed $(wc -l < "$work/owned") files"

step "installed files"
gui=0
[[ -x /usr/bin/ampscope ]] && gui=1
expect=(/usr/bin/ampscope-cli "/usr/share/doc/$pkg/copyright" /usr/share/man/man1/ampscope-cli.1.gz)
if [[ $gui -eq 1 ]]; then
  app_id=io.github.ampscope.AmpScope
  expect+=(/usr/share/man/man1/ampscope.1.gz
           "/usr/share/applications/$app_id.desktop"
           "/usr/share/metainfo/$app_id.metainfo.xml"
           "/usr/share/icons/hicolor/scalable/apps/$app_id.svg"
           "/usr/share/mime/packages/$app_id.xml"
           "/usr/share/icons/hicolor/scalable/mimetypes/application-x-ampscope-session.svg")
  for s in 16 24 32 48 64 128 256; do
    expect+=("/usr/share/icons/hicolor/${s}x${s}/apps/$app_id.png"
             "/usr/share/icons/hicolor/${s}x${s}/mimetypes/application-x-ampscope-session.png")
  done
fi
for f in "${expect[@]}"; do
  [[ -s "$f" ]] || fail "missing or empty: $f"
done
echo "all ${#expect[@]} expected files present"
if [[ $gui -eq 1 ]]; then
  # Every screenshot the metainfo names (by web URL) ships as a PNG under /usr/share/ampscope/screenshots.
  shots=$(grep -o '/screenshots/[A-Za-z0-9_.-]*\.png' "/usr/share/metainfo/$app_id.metainfo.xml" | sed 's|.*/||')
  [[ -n "$shots" ]] || fail "the metainfo names no screenshot"
  for name in $shots; do
    png="/usr/share/ampscope/screenshots/$name"
    [[ -s "$png" ]] || fail "the metainfo names $name but $png is missing"
    echo "screenshot $name: $(file -b "$png")"
  done
fi
if [[ $gui -eq 1 ]]; then
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "/usr/share/applications/$app_id.desktop"
    echo "desktop-file-validate: ok"
  fi
  if command -v appstreamcli >/dev/null; then
    appstreamcli validate --no-net "/usr/share/metainfo/$app_id.metainfo.xml"
  fi
  # The session file type, registered by shared-mime-info's dpkg trigger (update-mime-database), and the
  # desktop file as its handler by desktop-file-utils' (update-desktop-database). Both are Recommends:
  # checked where they are installed.
  session_type=application/x-ampscope-session
  if command -v update-mime-database >/dev/null; then
    grep -qx "50:$session_type:\*\.ampscope" /usr/share/mime/globs2 ||
      fail "$session_type is not in /usr/share/mime/globs2 after installing (shared-mime-info's trigger)"
    grep -aq "^\[60:$session_type\]\$" /usr/share/mime/magic || fail "no content match for $session_type in /usr/share/mime/magic"
    echo "MIME type $session_type registered: $(grep ":$session_type:" /usr/share/mime/globs2)"
  else
    echo "shared-mime-info is not installed: the MIME database was not checked"
  fi
  if command -v update-desktop-database >/dev/null; then
    grep -q "^$session_type=.*$app_id\.desktop" /usr/share/applications/mimeinfo.cache ||
      fail "$app_id.desktop is not the handler of $session_type in /usr/share/applications/mimeinfo.cache"
    echo "mimeinfo.cache: $(grep "^$session_type=" /usr/share/applications/mimeinfo.cache)"
  fi
fi
if command -v man >/dev/null; then
  for page in "${expect[@]}"; do
    [[ "$page" == */man1/*.gz ]] || continue
    MANWIDTH=80 man -l "$page" 2>&1 | head -n 3 | grep -q "User Commands" || fail "man page $page does not render"
  done
  echo "man pages render"
fi

step "ampscope-cli --version"
out=$(/usr/bin/ampscope-cli --version)
echo "$out"
[[ "$out" == *"$version"* ]] || fail "ampscope-cli --version does not name version $version"
/usr/bin/ampscope-cli convert 65504 1e-8 > "$work/convert.txt" || fail "ampscope-cli convert failed"
echo "ampscope-cli convert: $(wc -l < "$work/convert.txt") lines"

step "the Python probe, imported by Debian's python3"
probe_dir=/usr/lib/python3/dist-packages/ampscope_probe
for f in "$probe_dir/__init__.py" "$probe_dir/probe.py" /usr/share/doc/$pkg/examples/train_with_probe.py; do
  [[ -s "$f" ]] || fail "missing or empty: $f"
done
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  # -B: no __pycache__ written into dist-packages, which the removal below would leave behind.
  (cd "$work" && /usr/bin/python3 -B -c "import ampscope_probe; print('ampscope_probe', ampscope_probe.__version__)") ||
    fail "python3 -c 'import ampscope_probe' failed"
else
  echo "python3-torch is not installed: import ampscope_probe not tried (the probe needs torch)"
fi

if [[ $gui -eq 1 ]]; then
  step "ampscope --version, and a headless screenshot"
  out=$(QT_QPA_PLATFORM=offscreen timeout 60 /usr/bin/ampscope --version)
  echo "$out"
  [[ "$out" == *"$version"* ]] || fail "ampscope --version does not name version $version"
  shot="$work/x.png"
  # Run from an empty HOME so the test neither reads nor writes anyone's settings.
  HOME="$work/home" QT_QPA_PLATFORM=offscreen timeout 300 \
    /usr/bin/ampscope --screenshot "$shot" --size 1400x900 || fail "ampscope --screenshot failed"
  [[ -s "$shot" ]] || fail "ampscope --screenshot wrote no file or an empty one"
  magic=$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')
  [[ "$magic" == 89504e470d0a1a0a ]] || fail "$shot is not a PNG (starts with $magic)"
  echo "screenshot: $(stat -c %s "$shot") bytes, $(file -b "$shot")"

  step "ampscope FILE: a record stream followed from the command line; a damaged session refused"
  /usr/bin/ampscope-cli train --steps 20 --jsonl "$work/run.jsonl" > /dev/null || fail "ampscope-cli train --jsonl failed"
  out=$(HOME="$work/home" QT_QPA_PLATFORM=offscreen timeout 300 \
          /usr/bin/ampscope --screenshot "$work/follow.png" --size 1280x720 "$work/run.jsonl") ||
    fail "ampscope --screenshot FILE.jsonl failed: $out"
  echo "$out"
  [[ "$out" == *" records "* && -s "$work/follow.png" ]] || fail "ampscope did not follow $work/run.jsonl"
  printf '{"format":"ampscope-session","version":1,"config":{' > "$work/damaged.ampscope"
  rc=0
  out=$(HOME="$work/home" QT_QPA_PLATFORM=offscreen timeout 60 /usr/bin/ampscope "$work/damaged.ampscope" 2>&1) || rc=$?
  echo "$out"
  [[ $rc -eq 2 && "$out" == *damaged.ampscope* ]] || fail "a damaged session exited $rc (expected 2, naming the file)"
fi

step "apt-get remove $pkg"
apt-get remove -y "$pkg"
removed=1
status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
[[ -z "$status" || "$status" == *not-installed* || "$status" == *config-files* ]] ||
  fail "dpkg still reports $pkg as '$status'"
left=0
while IFS= read -r f; do
  if [[ -e "$f" ]]; then echo "left behind: $f" >&2; left=$((left + 1)); fi
done < "$work/owned"
[[ $left -eq 0 ]] || fail "$left file(s) of $pkg still present after removal"
echo "all $(wc -l < "$work/owned") files of $pkg are gone"
if [[ $gui -eq 1 ]] && command -v update-mime-database >/dev/null; then
  ! grep -q "$session_type" /usr/share/mime/globs2 || fail "$session_type is still in /usr/share/mime/globs2 after removal"
  echo "the MIME type is gone from the database"
fi

printf '\nsmoke-test: PASS (%s %s)\n' "$pkg" "$version"
