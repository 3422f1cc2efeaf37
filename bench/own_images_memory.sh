#!/usr/bin/env bash
# What loading your own images costs in memory, against what the loader budgets for them (N x H x
# W x C bytes, decoded as 8-bit values; image_memory_problem refuses a set over half the memory
# available). Writes N small BMP images (default 3,000 in 2 classes), then has
# `mirrortrain inspect` load them at 64, 128 and 181 px and prints each peak resident size above
# that of the same command on a generated dataset, and its ratio to the budget. Not a test: the
# figures are this machine's.
# Usage: bench/own_images_memory.sh [N]   (after ./scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-3000}
bin=build/app/mirrortrain
[[ -x $bin ]] || { echo "own_images_memory.sh: build first (./scripts/build.sh)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "own_images_memory.sh: needs /usr/bin/time (Debian's time package)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 - "$dir" "$n" <<'PY'
import os, struct, sys
root, n = sys.argv[1], int(sys.argv[2])
def bmp(v, w=16, h=16):
    row = bytes([v % 256, (v * 7) % 256, (v * 13) % 256] * w)
    row += b"\0" * ((4 - len(row) % 4) % 4)
    pixels = row * h
    return (b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) +
            struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0) + pixels)
for c, cls in enumerate(("a", "b")):
    os.makedirs(os.path.join(root, cls))
    for i in range(n // 2):
        with open(os.path.join(root, cls, f"{i}.bmp"), "wb") as f:
            f.write(bmp(i + 100 * c))
PY
peak_kib() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
base=$(peak_kib "$bin" inspect --dataset spirals)
printf '%-6s %12s %12s %8s\n' "size" "budget MiB" "above MiB" "ratio"
for side in 64 128 181; do
  peak=$(peak_kib "$bin" inspect --dataset images --data-dir "$dir" --image-size "$side")
  python3 -c "
n, s, peak, base = $n, $side, $peak, $base
budget = n * s * s * 3 / 2**20
above = (peak - base) / 1024
print(f'{s:<6} {budget:12.1f} {above:12.1f} {above / budget:8.2f}')"
done
