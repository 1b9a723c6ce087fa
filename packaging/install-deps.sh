#!/usr/bin/env bash
# Installs every Debian package that AmpScope's build, tests, benchmarks and packaging need, on Debian 12
# "bookworm" or Debian 13 "trixie" (the release is read from /etc/os-release). Idempotent and
# non-interactive: packages already present are skipped, and nothing is asked.
# Usage: packaging/install-deps.sh [--print]   (--print lists this release's packages and exits)
set -euo pipefail

# The few names that differ between releases. Everything else below is the same name on both.
codename=$( . /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || codename=
case "$codename" in
  bookworm)  # Debian 12: clang 14, LibTorch 1.13, Qt 6.4 (libqt6svg6 holds Qt's SVG plugins)
    clang_rt=libclang-rt-14-dev
    svg_plugins=() ;;
  trixie)    # Debian 13: clang 19, LibTorch 2.6, Qt 6.8 (the SVG icon engine and image plugin moved to
             # qt6-svg-plugins; without it the app's SVG icon is empty)
    clang_rt=libclang-rt-19-dev
    svg_plugins=(qt6-svg-plugins) ;;
  *)
    echo "install-deps: unsupported release '${codename:-unknown}' (VERSION_CODENAME in /etc/os-release);" \
         "AmpScope's package list knows Debian 12 (bookworm) and Debian 13 (trixie)" >&2
    exit 1 ;;
esac

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git file ccache
  # Qt 6 (widgets, SVG, linguist tools, offscreen/xcb platform plugins, Qt's own translations)
  qt6-base-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools qt6-translations-l10n
  qt6-qpa-plugins libgl-dev "${svg_plugins[@]}"
  # plotting (GPL-3.0-or-later: AmpScope inherits the licence)
  libqcustomplot-dev libqcustomplot2.1-qt6
  # LibTorch CPU (1.13 on Debian 12, 2.6 on Debian 13), and the BLAS it should use (the reference BLAS is ~2x slower)
  libtorch-dev libopenblas0-pthread
  # tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  # the libFuzzer targets (tests/fuzz): clang and its sanitizer/fuzzer runtimes
  clang "$clang_rt"
  # Python reference runs (the chapter's code on the same LibTorch version) and the reproduce export
  python3 python3-torch python3-numpy
  # fonts that render the Simplified Chinese UI
  fonts-noto-cjk fonts-dejavu-core
  # screenshots under a virtual X server, and looking at exported PDFs; keys, clicks and whole-screen
  # captures of the real window there (the projector evidence: xdotool, ImageMagick's import)
  xvfb xauth poppler-utils xdotool imagemagick
  # packaging: .deb build, lint and metadata validation
  dpkg-dev fakeroot lintian desktop-file-utils appstream
  # packaging: the session file type (update-mime-database, xmllint: packaging_mime_* tests)
  shared-mime-info libxml2-utils
  # packaging: hardening-check over the built executables (packaging_hardening_check)
  devscripts
  # packaging: the 16-256 px PNG icons are rendered from the SVG at build time
  librsvg2-bin
  # packaging/other-release.sh: the other Debian release's root, to build and test there
  debootstrap
)

if [[ "${1:-}" == "--print" ]]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${#missing[@]} missing package(s): ${missing[*]}"
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
