#!/bin/sh
# CTest packaging_mime_type_registers: the session type's shared-mime-info package, registered the way a
# package's installation registers it (update-mime-database over a share/mime folder), but into a
# temporary folder: no root, no gio or xdg-mime. Checks the generated database holds the glob, the
# content match, the parent type, the icon and both comments, and that update-mime-database said nothing
# (it warns about elements and attributes it does not know).
# Usage: check-mime-package.sh UPDATE_MIME_DATABASE MIME_XML APP_ID
set -eu
umd=$1 xml=$2 app_id=$3
type=application/x-ampscope-session
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check-mime-package: FAIL: $*" >&2; exit 1; }

mkdir -p "$work/mime/packages"
cp "$xml" "$work/mime/packages/$app_id.xml"
# The folder on the search path, so update-mime-database has no note to print about it.
out=$(XDG_DATA_HOME="$work" XDG_DATA_DIRS="$work" "$umd" "$work/mime" 2>&1) || fail "update-mime-database failed: $out"
[ -z "$out" ] || fail "update-mime-database said: $out"

grep -qx "50:$type:\*\.ampscope" "$work/mime/globs2" || fail "no *.ampscope glob in globs2: $(cat "$work/mime/globs2")"
grep -qx "$type application/json" "$work/mime/subclasses" || fail "not a subclass of application/json"
grep -qx "$type:text-x-script" "$work/mime/generic-icons" || fail "no generic icon"
grep -q "^$type\$" "$work/mime/types" || fail "$type not in types"
# The magic file is binary: a section [priority:type], then >offset=<2-byte length><value>.
grep -aq "^\[60:$type\]\$" "$work/mime/magic" || fail "no magic section for $type"
grep -aq '{"format":"ampscope-session"' "$work/mime/magic" || fail "the magic does not match a session's first bytes"
# Per-type file with the comments, the English and the zh_CN one.
per_type="$work/mime/$type.xml"
[ -f "$per_type" ] || fail "no $type.xml"
grep -q '<comment>AmpScope session</comment>' "$per_type" || fail "no English comment"
grep -q '<comment xml:lang="zh_CN">AmpScope 会话</comment>' "$per_type" || fail "no zh_CN comment"
echo "check-mime-package: $type registers: *.ampscope, content match, subclass of application/json"
