#!/usr/bin/env bash
# Builds and tests AmpScope on the OTHER supported Debian release, from this tree, without a second
# machine: on Debian 12 "bookworm" it works in a Debian 13 "trixie" root, on Debian 13 in a Debian 12
# root. The root is made once with debootstrap (from the mirror this machine's apt uses) and reused.
#
# Usage (as root): packaging/other-release.sh [--root DIR] [--mirror URL] [--jobs N] test|engine|package
#   test     the `default` preset (everything) built in build-<codename>/, then the whole CTest suite
#   engine   the `engine-only` preset built in build-engine-<codename>/, then its tests (engine, CLI,
#            probe): narrower and quicker, for CI
#   package  the `default` preset in build-<codename>/, then packaging/smoke-test.sh there: the .deb
#            (build-<codename>/ampscope_*.deb) is built, linted, installed, run and removed in the root
#   --root DIR    the other release's root (default /var/tmp/ampscope-<codename>); an existing root of
#                 that release is reused, anything else there is refused
#   --mirror URL  the Debian mirror for debootstrap (default: the one in this machine's apt sources)
#   --jobs N      build and test jobs (default: nproc)
# The tree is bind-mounted at /src inside the root, so the build folders land in this tree (git-ignored)
# beside this release's build/; ccache keeps its cache inside the root. Everything this script mounts
# is unmounted when it exits, also after a failure or Ctrl-C. Exit status: that of the build or tests,
# 1 when the root cannot be made or used, 2 for bad arguments.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tree=$(cd "$here/.." && pwd)

usage() {
  sed -n '/^# Usage/,/^#   --jobs/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}
die() { echo "other-release: $*" >&2; exit 1; }
bad_usage() { echo "other-release: $*" >&2; usage; exit 2; }

root_dir=
mirror=
jobs=$(nproc)
action=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --root) [[ $# -ge 2 && -n "$2" ]] || bad_usage "--root needs a folder"; root_dir=$2; shift 2 ;;
    --root=*) root_dir=${1#--root=}; [[ -n "$root_dir" ]] || bad_usage "--root needs a folder"; shift ;;
    --mirror) [[ $# -ge 2 && -n "$2" ]] || bad_usage "--mirror needs a URL"; mirror=$2; shift 2 ;;
    --mirror=*) mirror=${1#--mirror=}; [[ -n "$mirror" ]] || bad_usage "--mirror needs a URL"; shift ;;
    --jobs) [[ $# -ge 2 ]] || bad_usage "--jobs needs a number"; jobs=$2; shift 2 ;;
    --jobs=*) jobs=${1#--jobs=}; shift ;;
    -h|--help) usage; exit 0 ;;
    test|engine|package)
      [[ -z "$action" ]] || bad_usage "one action only (got '$action' and '$1')"
      action=$1; shift ;;
    *) bad_usage "unknown argument '$1'" ;;
  esac
done
[[ -n "$action" ]] || bad_usage "no action given"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || bad_usage "--jobs wants a positive number, not '$jobs'"

[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, mount and chroot need it)"

# This machine's release, and the other one.
host_codename=$( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || host_codename=
case "$host_codename" in
  bookworm) other=trixie ;;
  trixie) other=bookworm ;;
  *) die "this machine is '${host_codename:-unknown}' (VERSION_CODENAME in /etc/os-release); AmpScope knows" \
         "Debian 12 (bookworm) and Debian 13 (trixie)" ;;
esac
root_dir=${root_dir:-/var/tmp/ampscope-$other}
[[ "$root_dir" == /* ]] || root_dir="$PWD/$root_dir"
root_dir=${root_dir%/}
[[ -n "$root_dir" && "$root_dir" != / ]] || bad_usage "--root must not be /"
case "$root_dir/" in
  "$tree"/*) bad_usage "--root must lie outside the tree ($tree): the tree is mounted inside it" ;;
esac

# The mirror this machine's apt uses for its own release: the URIs of the deb822 entry whose Suites
# name the release, or the first matching `deb` line of sources.list.
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    awk -v rel="$host_codename" '
      function flush() { if (uris != "" && suites) { split(uris, u, " "); print u[1]; found = 1; exit } uris = ""; suites = 0 }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "uris:" { uris = $2; for (i = 3; i <= NF; i++) uris = uris " " $i }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == rel) suites = 1 }
      END { if (!found) flush() }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    awk -v rel="$host_codename" '
      $1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                    if ($(i + 1) == rel) { print $i; exit } }' "$f"
  done
}
if [[ -z "$mirror" ]]; then
  mirror=$(host_mirror | sed -n 1p) || true
  [[ -n "$mirror" ]] || die "no mirror for '$host_codename' in /etc/apt/sources.list(.d); give one with --mirror URL"
fi

# The root: reuse one of the right release, make one where there is nothing, refuse anything else.
root_codename() { ( . "$root_dir/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || true; }
if [[ -e "$root_dir/debootstrap" ]]; then
  die "$root_dir is an unfinished debootstrap (its debootstrap/ folder is still there); remove $root_dir and rerun"
elif [[ -x "$root_dir/usr/bin/apt-get" && -f "$root_dir/etc/os-release" ]]; then
  [[ "$(root_codename)" == "$other" ]] ||
    die "$root_dir holds a '$(root_codename)' root, not $other; choose another folder with --root"
  echo "other-release: reusing the $other root in $root_dir"
elif [[ -d "$root_dir" && -n "$(ls -A "$root_dir" 2>/dev/null)" ]]; then
  die "$root_dir exists, is not empty and is no Debian root; choose another folder with --root"
else
  command -v debootstrap >/dev/null || die "debootstrap is missing (packaging/install-deps.sh installs it)"
  echo "other-release: making a $other root in $root_dir from $mirror (debootstrap, a few minutes)"
  mkdir -p "$root_dir"
  debootstrap --variant=minbase "$other" "$root_dir" "$mirror" ||
    die "debootstrap $other $root_dir $mirror failed (see $root_dir/debootstrap/debootstrap.log)"
fi

# Mounts, undone in reverse order on every exit. Only what this run mounted is unmounted, so a root
# that someone else has mounted stays as it was.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" ||
      echo "other-release: could not unmount ${mounted[i]}" >&2
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bind() {
  local src=$1 dst="$root_dir$2"
  mkdir -p "$dst"
  if mountpoint -q "$dst"; then
    [[ "$2" != /src ]] || [[ "$(stat -c %d:%i "$src")" == "$(stat -c %d:%i "$dst")" ]] ||
      die "$dst is already a mount of something else than $src"
    return 0
  fi
  mount --bind "$src" "$dst" || die "mount --bind $src $dst failed"
  mounted+=("$dst")
}
bind /proc /proc
bind /sys /sys
bind /dev /dev
bind /dev/pts /dev/pts
bind "$tree" /src
cp /etc/resolv.conf "$root_dir/etc/resolv.conf"

# Inside: a clean environment (none of this machine's build variables), the tree at /src.
in_root() {
  chroot "$root_dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" CCACHE_DIR=/var/cache/ampscope-ccache CCACHE_BASEDIR=/src \
    CMAKE_BUILD_PARALLEL_LEVEL="$jobs" CTEST_PARALLEL_LEVEL="$jobs" /bin/bash -euo pipefail -c "$1"
}

echo "other-release: installing AmpScope's build dependencies in the $other root"
in_root "cd /src && packaging/install-deps.sh"

case "$action" in
  test)
    dir=build-$other
    in_root "cd /src && cmake --preset default -B $dir && cmake --build $dir &&
             ctest --test-dir $dir --output-on-failure" ;;
  engine)
    dir=build-engine-$other
    in_root "cd /src && cmake --preset engine-only -B $dir && cmake --build $dir &&
             ctest --test-dir $dir --output-on-failure" ;;
  package)
    dir=build-$other
    in_root "cd /src && cmake --preset default -B $dir && packaging/smoke-test.sh $dir" ;;
esac
echo "other-release: $action on $other: done (build folder $tree/$dir)"
