#!/usr/bin/env bash
# Builds the Debian package from a build directory and checks it as Debian's tools would:
#   - cpack -G DEB: mirror-workbench_<version>_amd64.deb, Depends computed by dpkg-shlibdeps;
#   - the files a desktop, man and bash look for are in it (programs, man pages, desktop entry,
#     icon, AppStream metainfo, completion, copyright, changelog);
#   - the version is project(VERSION) everywhere: the file name, `mirrortrain --version`, the
#     newest AppStream release, the newest changelog entry;
#   - desktop-file-validate and `appstreamcli validate` pass; lintian reports no errors (its
#     warnings are printed).
# Usage: scripts/package.sh [BUILD_DIR] [OUT_DIR]     (defaults: build, BUILD_DIR/package)
# ctest runs it as packaging.deb. Installing the package into a fresh Debian is
# packaging/test-install.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/package}
mkdir -p "$out"
out=$(cd "$out" && pwd)

missing=()
for tool in cpack dpkg-deb dpkg-shlibdeps lintian appstreamcli desktop-file-validate; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
  echo "package.sh: missing ${missing[*]}: run scripts/setup.sh (Debian: lintian appstream desktop-file-utils dpkg-dev)" >&2
  exit 1
fi

version=$(sed -nE 's/^project\(MirrorWorkbench VERSION ([0-9.]+).*/\1/p' "$root/CMakeLists.txt")
deb=$out/mirror-workbench_${version}_amd64.deb
rm -f "$deb"
cmake --build "$build" --target mirror_package_files -- --no-print-directory >/dev/null
(cd "$build" && cpack -G DEB -B "$out" >"$out/cpack.log" 2>&1) || {
  tail -n 30 "$out/cpack.log" >&2
  echo "package.sh: cpack failed (log: $out/cpack.log)" >&2
  exit 1
}
[[ -f $deb ]] || { echo "package.sh: cpack did not write $deb; it wrote: $(ls "$out")" >&2; exit 1; }
echo "package.sh: built $deb ($(du -h "$deb" | cut -f1))"

failed=0
fail() { echo "package.sh: FAIL $*" >&2; failed=1; }

contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }' | sed 's|^\./|/|')
want=(/usr/bin/mirrortrain /usr/share/man/man1/mirrortrain.1.gz
      /usr/share/bash-completion/completions/mirrortrain
      /usr/share/doc/mirror-workbench/copyright /usr/share/doc/mirror-workbench/changelog.gz
      /usr/share/mirror-workbench/presets/fashion-cnn.json /usr/share/mirror-workbench/lessons/global-batch.json)
if grep -qx /usr/bin/mirrorbench <<<"$contents"; then
  want+=(/usr/share/man/man1/mirrorbench.1.gz
         /usr/share/applications/org.mirrorworkbench.MirrorBench.desktop
         /usr/share/metainfo/org.mirrorworkbench.MirrorBench.metainfo.xml
         /usr/share/icons/hicolor/scalable/apps/mirror-workbench.svg
         /usr/share/icons/hicolor/16x16/apps/mirror-workbench.png
         /usr/share/icons/hicolor/256x256/apps/mirror-workbench.png)
fi
for f in "${want[@]}"; do
  grep -qx -- "$f" <<<"$contents" || fail "the package lacks $f"
done

control=$(dpkg-deb -f "$deb")
grep -q "^Version: $version$" <<<"$control" || fail "the package's Version is not $version: $(grep ^Version <<<"$control")"
grep -qE '^Depends: .*libtorch' <<<"$control" || fail "Depends does not name libtorch (shlibdeps): $(grep ^Depends <<<"$control")"
echo "package.sh: $(grep ^Depends <<<"$control")"

# The version in every place that shows one.
prog_version=$("$build/app/mirrortrain" --version | head -n 1)
[[ $prog_version == "mirrortrain $version" ]] || fail "mirrortrain --version says '$prog_version', not $version"
changelog_version=$(sed -nE '1s/^mirror-workbench \(([^)]+)\).*/\1/p' "$root/packaging/changelog")
[[ $changelog_version == "$version" ]] || fail "packaging/changelog's newest entry is $changelog_version, not $version"

extract=$(mktemp -d)
trap 'rm -rf "$extract"' EXIT
dpkg-deb -x "$deb" "$extract"
metainfo=$extract/usr/share/metainfo/org.mirrorworkbench.MirrorBench.metainfo.xml
if [[ -f $metainfo ]]; then
  release=$(grep -m1 -oE '<release version="[^"]+"' "$metainfo" | cut -d'"' -f2)
  [[ $release == "$version" ]] || fail "the metainfo's newest release is $release, not $version"
  # --no-net: the screenshots and home page are not fetched (CI has no network to them).
  appstreamcli validate --no-net --pedantic "$metainfo" >"$out/appstream.log" 2>&1 ||
    fail "appstreamcli validate: $(cat "$out/appstream.log")"
  echo "package.sh: appstreamcli validate: $(tail -n 1 "$out/appstream.log")"
  desktop-file-validate "$extract/usr/share/applications/org.mirrorworkbench.MirrorBench.desktop" >"$out/desktop.log" 2>&1 ||
    fail "desktop-file-validate: $(cat "$out/desktop.log")"
fi
gzip -dc "$extract/usr/share/man/man1/mirrortrain.1.gz" | grep -qF -- '\-\-nproc\fR INT' ||
  fail "mirrortrain's man page does not list train's --nproc"

# lintian: errors fail the check; warnings and notes are listed for the closing note.
lintian --no-tag-display-limit "$deb" >"$out/lintian.log" 2>&1 || true
if grep -q '^E:' "$out/lintian.log"; then
  fail "lintian errors:"; grep '^E:' "$out/lintian.log" >&2
fi
echo "package.sh: lintian: $(grep -c '^E:' "$out/lintian.log" || true) errors, $(grep -c '^W:' "$out/lintian.log" || true) warnings (in $out/lintian.log)"
grep '^W:' "$out/lintian.log" | sed 's/^/  /' || true

((failed == 0)) && echo "package.sh: $deb passes"
exit $failed
