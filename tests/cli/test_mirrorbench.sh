#!/usr/bin/env bash
# The window's command line as a user types it: a wrong page name is refused with the pages
# named, a right one opens and a screenshot is written. Offscreen, so no display is needed.
# --version and --help answer with no display at all (help2man makes the man page from them).
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$tmp/cfg" XDG_RUNTIME_DIR="$tmp" MIRROR_RUNS_DIR="$tmp/runs"
failed=0
version=$(sed -nE 's/^project\(MirrorWorkbench VERSION ([0-9.]+).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$bin" --version 2>&1); rc=$?
if [[ $rc -eq 0 && $out == "mirrorbench $version" ]]; then
  echo "ok   --version without a display: $out"
else
  failed=1; echo "FAIL --version: rc=$rc, expected 'mirrorbench $version', output: $out"
fi
out=$(env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM= "$bin" --help 2>&1); rc=$?
if [[ $rc -eq 0 && $out == *"--presentation"* && $out == *"--view <page>"* ]]; then
  echo "ok   --help without a display"
else
  failed=1; echo "FAIL --help: rc=$rc, output: $out"
fi
out=$("$bin" --view nope 2>&1); rc=$?
if [[ $rc -eq 2 && $out == *"--view nope: no such page; give one of live, strategy, learned, runs"* ]]; then
  echo "ok   --view with an unknown page"
else
  failed=1; echo "FAIL --view nope: rc=$rc, output: $out"
fi
out=$("$bin" --view Strategy --preset spirals-mlp --screenshot "$tmp/shot.png" --after 1 2>&1); rc=$?
if [[ $rc -eq 0 && -s $tmp/shot.png ]]; then
  echo "ok   --view Strategy with a screenshot"
else
  failed=1; echo "FAIL --view Strategy: rc=$rc, output: $out"
fi
exit $failed
