#!/usr/bin/env bash
# Installs the .deb into a pristine Debian 12 and uses it there as a user would:
#   1. a minimal Debian 12 root from debootstrap --variant=minbase (made once, then kept as a
#      tarball under the cache folder and unpacked afresh for every test);
#   2. `apt-get install ./mirror-workbench_<version>_amd64.deb`, so apt resolves its dependencies
#      (and Recommends: OpenBLAS, Fashion-MNIST) from the archive;
#   3. `mirrortrain train --preset spirals-mlp --epochs 1`, and `mirrorbench --screenshot` under
#      xvfb-run, whose PNG is copied out;
#   4. the menu entry, the icon, the man pages and the bash completion are where the desktop, man
#      and bash look for them.
# Not part of the quick test suite (it downloads several hundred MB the first time; the .debs are
# kept in the cache folder for the next run).
# Usage: packaging/test-install.sh [DEB] [OUT_DIR]   (default: the one scripts/package.sh built)
# Needs root (or sudo), debootstrap and a Debian mirror; skips with one line when it has not.
# Cache: $MIRROR_DEBOOTSTRAP_CACHE, default ~/.cache/mirror-workbench.
set -euo pipefail
root_dir=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -nE 's/^project\(MirrorWorkbench VERSION ([0-9.]+).*/\1/p' "$root_dir/CMakeLists.txt")
deb=$(readlink -f "${1:-$root_dir/build/package/mirror-workbench_${version}_amd64.deb}")
out=${2:-$root_dir/build/package/test-install}
mirror=${MIRROR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${MIRROR_DEBOOTSTRAP_CACHE:-$HOME/.cache/mirror-workbench}

skip() { echo "test-install.sh: SKIPPED: $*"; exit 0; }
[[ -f $deb ]] || { echo "test-install.sh: no package at $deb: build it with scripts/package.sh" >&2; exit 1; }
if [[ $(id -u) -eq 0 ]]; then as_root=(); elif sudo -n true 2>/dev/null; then as_root=(sudo -n); else
  skip "needs root or password-less sudo (debootstrap and chroot)"; fi
command -v debootstrap >/dev/null || skip "debootstrap is not installed (apt-get install debootstrap)"

mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)
tarball=$cache/bookworm-minbase.tar
if [[ ! -f $tarball ]]; then
  echo "test-install.sh: making a minimal Debian 12 with debootstrap from $mirror (once; kept in $tarball)"
  fresh=$(mktemp -d)
  if ! "${as_root[@]}" debootstrap --variant=minbase bookworm "$fresh" "$mirror" >"$out/debootstrap.log" 2>&1; then
    "${as_root[@]}" rm -rf "$fresh"
    skip "debootstrap could not make a root from $mirror (its log: $out/debootstrap.log)"
  fi
  "${as_root[@]}" tar -C "$fresh" -cf "$tarball.part" . && mv "$tarball.part" "$tarball"
  "${as_root[@]}" rm -rf "$fresh"
fi

chroot_dir=$(mktemp -d /tmp/mirror-test-install.XXXXXX)
cleanup() {
  for m in proc sys dev/pts dev var/cache/apt/archives; do "${as_root[@]}" umount -l "$chroot_dir/$m" 2>/dev/null || true; done
  "${as_root[@]}" rm -rf "$chroot_dir"
}
trap cleanup EXIT
"${as_root[@]}" tar -C "$chroot_dir" -xf "$tarball"
"${as_root[@]}" mount -t proc proc "$chroot_dir/proc"
"${as_root[@]}" mount -t sysfs sys "$chroot_dir/sys"
"${as_root[@]}" mount --bind /dev "$chroot_dir/dev"
"${as_root[@]}" mount --bind /dev/pts "$chroot_dir/dev/pts"
# The downloaded .debs are kept between runs (the root itself is always fresh).
mkdir -p "$cache/apt-archives/partial"
"${as_root[@]}" mount --bind "$cache/apt-archives" "$chroot_dir/var/cache/apt/archives"
"${as_root[@]}" cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
"${as_root[@]}" cp "$deb" "$chroot_dir/tmp/"
inside() { "${as_root[@]}" chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
  DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 bash -c "$1"; }

echo "test-install.sh: apt-get install ./$(basename "$deb") into a fresh Debian 12 (minbase)"
start=$SECONDS
inside "apt-get update -qq && apt-get install -y -qq ./tmp/$(basename "$deb") xvfb xauth man-db bash-completion" \
  >"$out/apt.log" 2>&1 || { tail -n 30 "$out/apt.log" >&2; echo "test-install.sh: FAIL: apt could not install the package" >&2; exit 1; }
echo "test-install.sh: installed in $((SECONDS - start)) s; $(inside "dpkg-query -W -f='\${Installed-Size}' mirror-workbench") KiB for the package," \
  "$(inside "dpkg-query -W -f='\${db:Status-Abbrev}\n' | grep -c '^ii'") packages in the root"

failed=0
check() {  # check NAME COMMAND: runs COMMAND inside, prints ok/FAIL and its last lines
  local name=$1 log
  log=$out/$(tr ' /' '__' <<<"$name").log
  if inside "$2" >"$log" 2>&1; then echo "ok   $name"; else failed=1; echo "FAIL $name:"; tail -n 15 "$log"; fi
}
check "mirrortrain --version" "mirrortrain --version | grep -x 'mirrortrain $version'"
check "mirrortrain train --preset spirals-mlp --epochs 1" \
  "cd /root && mirrortrain train --preset spirals-mlp --epochs 1 && ls ~/.local/share/mirror-workbench/runs/*/run.json"
check "mirrortrain train on Fashion-MNIST from the recommended package" \
  "mirrortrain train --preset fashion-cnn --max-steps 20 --no-record"
check "mirrorbench --screenshot under xvfb-run" \
  "xvfb-run -a -s '-screen 0 1280x720x24' mirrorbench --preset spirals-mlp --train --screenshot /tmp/shot.png --after 8 && test -s /tmp/shot.png"
"${as_root[@]}" cp "$chroot_dir/tmp/shot.png" "$out/installed-mirrorbench.png" 2>/dev/null || true
check "the menu entry is where desktops look, and its icon resolves" \
  "f=/usr/share/applications/org.mirrorworkbench.MirrorBench.desktop; grep -qx 'Exec=mirrorbench' \$f &&
   icon=\$(sed -n 's/^Icon=//p' \$f) && ls /usr/share/icons/hicolor/48x48/apps/\$icon.png /usr/share/icons/hicolor/scalable/apps/\$icon.svg"
check "man finds both pages" "man -w mirrortrain && man -w mirrorbench && man mirrortrain | grep -q -- --nproc"
"${as_root[@]}" cp "$root_dir/tests/cli/test_completion.sh" "$chroot_dir/tmp/"
check "bash completes mirrortrain's commands, flags and names" \
  "bash /tmp/test_completion.sh /usr/bin/mirrortrain /usr/share/bash-completion/completions/mirrortrain"
check "apt removes it cleanly" "apt-get remove -y -qq mirror-workbench && ! test -e /usr/bin/mirrortrain"
((failed == 0)) && echo "test-install.sh: the package installs and works on a fresh Debian 12 (screenshot: $out/installed-mirrorbench.png)"
exit $failed
