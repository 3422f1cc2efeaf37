#!/usr/bin/env python3
"""Writes the Keras-dataset test fixtures and tests/core/data/keras_golden.h.

What it makes (paths relative to the repository root):

  tests/fixtures/keras/reuters_small.npz         x (40 ragged int lists, object
                                                 array, pickled), y (int64);
                                                 np.savez_compressed (deflate)
  tests/fixtures/keras/reuters_small_stored.npz  the same arrays, np.savez (stored)
  tests/fixtures/keras/imdb_small.npz            x_train (30), y_train, x_test (20),
                                                 y_test; np.savez_compressed
  tests/fixtures/keras/reuters_small_word_index.json
  tests/fixtures/keras/bad/*.npz                 malformed archives, one fault each
  tests/core/data/keras_golden.h                      golden values for the C++ tests

The golden values come from:
  * numpy's legacy RandomState (MT19937 + the masked-rejection bounded draw
    used by RandomState.shuffle); every permutation is also recomputed by an
    independent pure-Python MT19937 in this file and asserted equal;
  * a plain-Python re-statement of keras.datasets.reuters.load_data,
    keras.datasets.imdb.load_data and keras.utils.pad_sequences written from
    reading the Keras 3 source (Keras itself is not needed or imported).
See tests/tools/KERAS_FACTS.md for the rules being re-stated.

Everything is deterministic (fixed seeds; numpy's zip writer stamps every
member 1980-01-01), so rerunning rewrites identical files given the same
numpy/zlib. Rerun from the repository root with the system Python, which has
numpy:

    /usr/bin/python3 tests/tools/make_keras_fixtures.py

Nothing in this script unpickles the hostile fixtures with a permissive
unpickler: they are checked with pickletools.genops (a pure opcode scan) and
with an unpickler whose find_class refuses everything outside numpy's three
array-reconstruction globals.
"""
import io
import json
import os
import pickle
import pickletools
import struct
import sys
import zipfile

try:
    import numpy as np
except ImportError as exc:
    sys.stderr.write(f"error: {exc}. Run with /usr/bin/python3 (needs numpy).\n")
    sys.exit(2)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures", "keras")
BAD = os.path.join(FIX, "bad")
HEADER = os.path.join(ROOT, "tests", "core", "data", "keras_golden.h")


# --------------------------------------------------------------------------
# Independent MT19937 and legacy bounded draw (cross-check for numpy).
# --------------------------------------------------------------------------
class PyMT19937:
    """Textbook 32-bit Mersenne Twister with init_genrand seeding."""

    def __init__(self, seed):
        state = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            prev = state[-1]
            state.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
        self.state = state
        self.pos = 624

    def _regenerate(self):
        s = self.state
        for i in range(624):
            y = (s[i] & 0x80000000) | (s[(i + 1) % 624] & 0x7FFFFFFF)
            v = s[(i + 397) % 624] ^ (y >> 1)
            if y & 1:
                v ^= 0x9908B0DF
            s[i] = v
        self.pos = 0

    def next32(self):
        if self.pos >= 624:
            self._regenerate()
        y = self.state[self.pos]
        self.pos += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y

    def interval(self, hi):
        """Uniform integer in [0, hi] by masking and rejecting (hi < 2**32)."""
        if hi == 0:
            return 0
        assert hi <= 0xFFFFFFFF
        mask = hi
        for sh in (1, 2, 4, 8, 16):
            mask |= mask >> sh
        while True:
            v = self.next32() & mask
            if v <= hi:
                return v

    def shuffle(self, items):
        for i in range(len(items) - 1, 0, -1):
            j = self.interval(i)
            items[i], items[j] = items[j], items[i]


def numpy_perm(n, seed, prior_n=0):
    """np.arange(n) after RandomState(seed).shuffle, optionally preceded by one
    shuffle of np.arange(prior_n) on the same generator (imdb's test split)."""
    rng = np.random.RandomState(seed)
    if prior_n:
        rng.shuffle(np.arange(prior_n))
    idx = np.arange(n)
    rng.shuffle(idx)
    return idx


def py_perm(n, seed, prior_n=0):
    g = PyMT19937(seed)
    if prior_n:
        g.shuffle(list(range(prior_n)))
    idx = list(range(n))
    g.shuffle(idx)
    return idx


# --------------------------------------------------------------------------
# Keras algorithms, re-stated (see KERAS_FACTS.md).
# --------------------------------------------------------------------------
def _shift(seqs, start_char, index_from):
    head = [] if start_char is None else [start_char]
    return [head + [w + index_from for w in s] for s in seqs]


def _drop_long(maxlen, seqs, labels):
    keep = [k for k, s in enumerate(seqs) if len(s) < maxlen]
    return [seqs[k] for k in keep], [labels[k] for k in keep]


def _vocab_filter(seqs, num_words, skip_top, oov_char):
    if not num_words:  # None and 0 both mean "take the largest id seen"
        num_words = max(max(s) for s in seqs)
    out = []
    for s in seqs:
        if oov_char is None:
            out.append([w for w in s if skip_top <= w < num_words])
        else:
            out.append([w if skip_top <= w < num_words else oov_char for w in s])
    return out


def reuters_load(x, y, num_words=None, skip_top=0, maxlen=None, test_split=0.2,
                 seed=113, start_char=1, oov_char=2, index_from=3):
    rng = np.random.RandomState(seed)
    order = np.arange(len(x))
    rng.shuffle(order)
    seqs = [list(x[k]) for k in order]
    labels = [int(y[k]) for k in order]
    seqs = _shift(seqs, start_char, index_from)
    if maxlen:
        seqs, labels = _drop_long(maxlen, seqs, labels)
    seqs = _vocab_filter(seqs, num_words, skip_top, oov_char)
    cut = int(len(seqs) * (1 - test_split))
    return (seqs[:cut], labels[:cut]), (seqs[cut:], labels[cut:])


def imdb_load(x_train, y_train, x_test, y_test, num_words=None, skip_top=0,
              maxlen=None, seed=113, start_char=1, oov_char=2, index_from=3):
    rng = np.random.RandomState(seed)
    o_train = np.arange(len(x_train))
    rng.shuffle(o_train)
    o_test = np.arange(len(x_test))
    rng.shuffle(o_test)  # same generator, continuing: not re-seeded
    tr = _shift([list(x_train[k]) for k in o_train], start_char, index_from)
    te = _shift([list(x_test[k]) for k in o_test], start_char, index_from)
    ltr = [int(y_train[k]) for k in o_train]
    lte = [int(y_test[k]) for k in o_test]
    if maxlen:
        tr, ltr = _drop_long(maxlen, tr, ltr)
        te, lte = _drop_long(maxlen, te, lte)
        if not tr or not te:
            raise ValueError("maxlen removed every sequence of a split")
    both = _vocab_filter(tr + te, num_words, skip_top, oov_char)
    return (both[:len(tr)], ltr), (both[len(tr):], lte)


def pad(seqs, maxlen=None, padding="pre", truncating="pre", value=0):
    width = max(len(s) for s in seqs) if maxlen is None else maxlen
    rows = []
    for s in seqs:
        row = [value] * width
        if s:
            if len(s) <= width:
                kept = s
            elif truncating == "pre":
                kept = s[len(s) - width:]
            else:
                kept = s[:width]
            if padding == "post":
                row[:len(kept)] = kept
            else:
                row[width - len(kept):] = kept
        rows.append(row)
    return rows


# --------------------------------------------------------------------------
# Fixture data.
# --------------------------------------------------------------------------
def object_array(seqs):
    arr = np.empty(len(seqs), dtype=object)
    for k, s in enumerate(seqs):
        arr[k] = [int(w) for w in s]
    return arr


def ragged(rng, count, vocab=499, fixed=None):
    """count int lists, lengths 3..60, ids 1..vocab with a 1/k^1.1 skew."""
    ids = np.arange(1, vocab + 1)
    p = 1.0 / ids ** 1.1
    p /= p.sum()
    lengths = rng.randint(3, 61, size=count)
    for k, n in (fixed or {}).items():
        lengths[k] = n
    return [[int(w) for w in rng.choice(ids, size=int(n), p=p)] for n in lengths]


def make_reuters():
    rng = np.random.RandomState(20240611)
    seqs = ragged(rng, 40, fixed={5: 3, 12: 60, 17: 34})
    seqs[17][int(rng.randint(34))] = 500  # the only occurrence of the max id
    y = rng.randint(0, 5, size=40).astype(np.int64)
    return object_array(seqs), y


def make_imdb():
    rng = np.random.RandomState(20240612)
    x_train = ragged(rng, 30, fixed={3: 3, 9: 60})
    y_train = rng.randint(0, 2, size=30).astype(np.int64)
    x_test = ragged(rng, 20, fixed={0: 4})
    y_test = rng.randint(0, 2, size=20).astype(np.int64)
    return object_array(x_train), y_train, object_array(x_test), y_test


def word_index():
    real = ["the", "of", "to", "said", "and", "a", "mln", "3", "for", "vs",
            "dlrs", "it", "reuter", "pct", "on"]
    out = {w: k + 1 for k, w in enumerate(real)}
    for k in range(len(real) + 1, 501):
        out[f"w{k}"] = k
    return out


# --------------------------------------------------------------------------
# Hostile / malformed archives.
# --------------------------------------------------------------------------
def npy_bytes(header_dict, payload):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header_dict)
    return buf.getvalue() + payload


def write_zip(path, members):
    """Stored zip laid out like numpy's savez (zip64 extra, 1980 timestamps)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in members:
            with zf.open(name, "w", force_zip64=True) as fh:
                fh.write(data)


def npy_of(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


def hand_pickle(elements):
    """A protocol-3 pickle of a 1-D object ndarray, assembled opcode by opcode
    in the shape numpy 1.x emits (minus the memo puts). `elements` is the raw
    opcode text for each element, pushed between MARK and APPENDS."""
    uni = lambda s: b"X" + struct.pack("<I", len(s)) + s.encode()
    out = b"\x80\x03"
    out += b"cnumpy.core.multiarray\n_reconstruct\n"
    out += b"cnumpy\nndarray\n" + b"K\x00\x85" + b"C\x01b" + b"\x87R"
    out += b"(" + b"K\x01" + b"K" + bytes([len(elements)]) + b"\x85"
    out += b"cnumpy\ndtype\n" + uni("O8") + b"\x89\x88\x87R"
    out += b"(K\x03" + uni("|") + b"NNN" + b"J\xff\xff\xff\xff" * 2 + b"K?tb"
    out += b"\x89" + b"](" + b"".join(elements) + b"e" + b"tb."
    return out


def int_list_ops(values):
    return b"](" + b"".join(b"K" + bytes([v]) for v in values) + b"e"


OBJ_HEADER = {"descr": "|O", "fortran_order": False, "shape": (3,)}
SAFE_GLOBALS = {("numpy", "ndarray"), ("numpy", "dtype"),
                ("numpy.core.multiarray", "_reconstruct")}


class GuardedUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) not in SAFE_GLOBALS:
            raise pickle.UnpicklingError(f"refused global {module}.{name}")
        return super().find_class(module, name)


def globals_in(pkl):
    return [arg for op, arg, _ in pickletools.genops(pkl) if op.name == "GLOBAL"]


def make_bad(tiny_x, tiny_y):
    os.makedirs(BAD, exist_ok=True)
    good_x = npy_of(tiny_x)

    # Sanity: the hand assembler reproduces numpy's array when fed good data.
    plain = hand_pickle([int_list_ops([1, 2, 3]), int_list_ops([4, 5]),
                         int_list_ops([6])])
    back = GuardedUnpickler(io.BytesIO(plain)).load()
    assert [list(s) for s in back] == [[1, 2, 3], [4, 5], [6]]

    # 1. A foreign global hidden in the second element: os.system("true").
    evil = hand_pickle([int_list_ops([1, 2, 3]),
                        b"cos\nsystem\n" + b"X\x04\x00\x00\x00true" + b"\x85R",
                        int_list_ops([6])])
    assert "os system" in globals_in(evil)
    try:
        GuardedUnpickler(io.BytesIO(evil)).load()
        raise AssertionError("foreign global was not refused")
    except pickle.UnpicklingError:
        pass
    write_zip(os.path.join(BAD, "foreign_global.npz"),
              [("x.npy", npy_bytes(OBJ_HEADER, evil)), ("y.npy", npy_of(tiny_y))])

    # 2. EXT1 (0x82, extension-registry lookup), never emitted by numpy.
    odd = hand_pickle([int_list_ops([1, 2, 3]), b"\x82\x01", int_list_ops([6])])
    assert "EXT1" in [op.name for op, _, _ in pickletools.genops(odd)]
    write_zip(os.path.join(BAD, "bad_opcode.npz"),
              [("x.npy", npy_bytes(OBJ_HEADER, odd)), ("y.npy", npy_of(tiny_y))])

    # 3. y declares 10**12 int64 elements but carries 16 bytes.
    huge = npy_bytes({"descr": "<i8", "fortran_order": False,
                      "shape": (10 ** 12,)}, struct.pack("<2q", 0, 1))
    hdr = np.lib.format.read_array_header_1_0(_after_magic(huge))
    assert hdr[0] == (10 ** 12,)
    write_zip(os.path.join(BAD, "huge_count.npz"),
              [("x.npy", good_x), ("y.npy", huge)])

    # 4. y as float64.
    write_zip(os.path.join(BAD, "wrong_dtype.npz"),
              [("x.npy", good_x),
               ("y.npy", npy_of(tiny_y.astype(np.float64)))])

    # 5. No y member.
    write_zip(os.path.join(BAD, "missing_member.npz"), [("x.npy", good_x)])

    # 6. A valid archive cut in half (no central directory left).
    buf = io.BytesIO()
    np.savez(buf, x=tiny_x, y=tiny_y)
    whole = buf.getvalue()
    with open(os.path.join(BAD, "truncated.npz"), "wb") as fh:
        fh.write(whole[: len(whole) // 2])

    # 7. Not a zip at all.
    junk = np.random.RandomState(7).bytes(64)
    assert not junk.startswith(b"PK")
    with open(os.path.join(BAD, "not_zip.npz"), "wb") as fh:
        fh.write(junk)


def _after_magic(npy):
    fp = io.BytesIO(npy)
    assert np.lib.format.read_magic(fp) == (1, 0)
    return fp


# --------------------------------------------------------------------------
# Header writer.
# --------------------------------------------------------------------------
def c_ints(values, per_line=20, indent="    "):
    values = [int(v) for v in values]
    if not values:
        return "{}"
    lines = [", ".join(str(v) for v in values[k:k + per_line])
             for k in range(0, len(values), per_line)]
    if len(lines) == 1:
        return "{" + lines[0] + "}"
    return "{\n" + ",\n".join(indent + ln for ln in lines) + "}"


class Header:
    def __init__(self):
        self.lines = []

    def add(self, text=""):
        self.lines.extend(text.split("\n"))

    def array(self, ctype, name, values):
        if values:
            self.add(f"inline constexpr {ctype} {name}[] = {c_ints(values)};")
            return f"std::span<const {ctype}>({name})"
        return f"std::span<const {ctype}>()"


def opt_text(o):
    none = lambda v: -1 if v is None else v
    return ("{.num_words = %d, .skip_top = %d, .maxlen = %d, .test_split = %r, "
            ".seed = %du, .start_char = %d, .oov_char = %d, .index_from = %d}" % (
                none(o["num_words"]), o["skip_top"], none(o["maxlen"]),
                o["test_split"], o["seed"], none(o["start_char"]),
                none(o["oov_char"]), o["index_from"]))


DEFAULTS = dict(num_words=None, skip_top=0, maxlen=None, test_split=0.2,
                seed=113, start_char=1, oov_char=2, index_from=3)

REUTERS_CASES = [
    ("defaults", {}),
    ("num_words_100", dict(num_words=100)),
    ("num_words_100_skip_top_5", dict(num_words=100, skip_top=5)),
    ("maxlen_20", dict(maxlen=20)),
    ("drop_mode_index_from_0", dict(start_char=None, oov_char=None, index_from=0)),
    ("test_split_0_25", dict(test_split=0.25)),
    ("seed_7", dict(seed=7)),
]
IMDB_CASES = [
    ("defaults", {}),
    ("maxlen_25_num_words_50", dict(maxlen=25, num_words=50)),
]
PERM_CASES = [(1, 113, 0), (2, 113, 0), (10, 113, 0), (1000, 113, 0),
              (11228, 113, 0), (25000, 113, 0), (25000, 226, 0), (8982, 0, 0),
              (100, 42, 0), (70000, 4294967295, 0), (25000, 113, 25000)]
PAD_INPUT = [[5, 6, 7], [1, 2, 3, 4, 5, 6, 7, 8], [], [9]]
PAD_CASES = [
    ("defaults", None, "pre", "pre", 0),
    ("maxlen5_pad_pre_trunc_pre", 5, "pre", "pre", 0),
    ("maxlen5_pad_pre_trunc_post", 5, "pre", "post", 0),
    ("maxlen5_pad_post_trunc_pre", 5, "post", "pre", 0),
    ("maxlen5_pad_post_trunc_post", 5, "post", "post", 0),
    ("value_minus1", None, "pre", "pre", -1),
    ("maxlen10_value_minus1_post", 10, "post", "pre", -1),
]


def camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def emit_load_case(h, prefix, name, opts, result):
    (xtr, ytr), (xte, yte) = result
    base = f"k{prefix}{camel(name)}"
    spans = [h.array("int64_t", f"{base}YTrain", ytr),
             h.array("int64_t", f"{base}YTest", yte),
             h.array("int64_t", f"{base}XTrainFirst", xtr[0] if xtr else []),
             h.array("int64_t", f"{base}XTrainLast", xtr[-1] if xtr else []),
             h.array("int64_t", f"{base}XTestFirst", xte[0] if xte else [])]
    tok = lambda xs: sum(len(s) for s in xs)
    ids = lambda xs: sum(sum(s) for s in xs)
    return (f"    {{\"{name}\", {opt_text(opts)},\n"
            f"     {len(xtr)}, {len(xte)}, {tok(xtr)}, {ids(xtr)}, {tok(xte)}, {ids(xte)},\n"
            f"     {spans[0]}, {spans[1]},\n     {spans[2]},\n     {spans[3]},\n"
            f"     {spans[4]}}},")


def build_header(rx, ry, itx, ity, ix, iy):
    h = Header()
    h.add(f"""// Generated by tests/tools/make_keras_fixtures.py -- do not edit by hand.
// numpy {np.__version__}, Python {sys.version.split()[0]}. Rerun:
//   /usr/bin/python3 tests/tools/make_keras_fixtures.py
// Golden values for the Keras dataset loaders (reuters/imdb load_data),
// pad_sequences and numpy's legacy RandomState(seed).shuffle. Load results are
// from a re-statement of the Keras 3 algorithms (tests/tools/KERAS_FACTS.md)
// applied to tests/fixtures/keras/*.npz; permutations are from numpy and were
// cross-checked against an independent MT19937 in the script.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace mirror::testing {{

// ---- MT19937 (numpy RandomState(seed) == std::mt19937(seed)) ----------------
// First five genrand_int32 outputs. For seed 113 these equal numpy's
// RandomState(113).randint(0, 2**32, size=5, dtype=np.uint64): a range of
// exactly 2**32 values makes the legacy bounded draw return the raw 32-bit
// output unchanged (also equal to RandomState(113)._bit_generator.random_raw(5)).""")
    g = PyMT19937(113)
    first = [g.next32() for _ in range(5)]
    via_randint = np.random.RandomState(113).randint(0, 2 ** 32, size=5,
                                                     dtype=np.uint64)
    raw = np.random.RandomState(113)._bit_generator.random_raw(5)
    assert first == [int(v) for v in via_randint] == [int(v) for v in raw], first
    g = PyMT19937(5489)
    std_first = [g.next32() for _ in range(5)]
    assert std_first[0] == 3499211612
    h.add(f"inline constexpr uint32_t kMt19937Seed113First5[5] = {c_ints(first)};")
    h.add("// Seed 5489 (std::mt19937's default seed), for a sanity check of the engine.")
    h.add(f"inline constexpr uint32_t kMt19937Seed5489First5[5] = {c_ints(std_first)};")
    h.add("""
// ---- numpy legacy shuffle ---------------------------------------------------
// idx = np.arange(n); rng = np.random.RandomState(seed);
// if prior_n: rng.shuffle(np.arange(prior_n))   (same generator, used first)
// rng.shuffle(idx)
// head = idx[:count], tail = idx[n-count:], count = min(6, n).
// Shuffle: for i = n-1 down to 1: j = draw in [0, i] by masked rejection on
// 32-bit outputs; swap(idx[i], idx[j]).  The prior_n row is imdb's test-split
// order: Keras shuffles x_train then x_test with one RandomState(seed).
struct PermGolden {
  int64_t n;
  uint32_t seed;
  int64_t prior_n;
  int count;
  int64_t head[6];
  int64_t tail[6];
};
inline constexpr PermGolden kPermGolden[] = {""")
    for n, seed, prior in PERM_CASES:
        a = numpy_perm(n, seed, prior)
        b = py_perm(n, seed, prior)
        assert [int(v) for v in a] == b, (n, seed, prior)
        cnt = min(6, n)
        pad6 = lambda v: [int(t) for t in v] + [0] * (6 - len(v))
        h.add(f"    {{{n}, {seed}u, {prior}, {cnt}, {c_ints(pad6(a[:cnt]))}, "
              f"{c_ints(pad6(a[n - cnt:]))}}},")
    h.add("};")

    h.add("""
// ---- Fixture contents (raw, as stored) ----------------------------------------
// tests/fixtures/keras/reuters_small.npz and reuters_small_stored.npz hold the
// same arrays; imdb_small.npz has x_train/y_train/x_test/y_test.""")
    h.add(f"inline constexpr std::size_t kReutersSmallCount = {len(rx)};")
    h.add("inline constexpr int64_t kReutersSmallMaxId = 500;  // appears exactly once")
    h.array("int64_t", "kReutersSmallY", ry)
    h.array("int64_t", "kReutersSmallLengths", [len(s) for s in rx])
    h.array("int64_t", "kReutersSmallX0", rx[0])
    h.array("int64_t", "kReutersSmallXLast", rx[-1])
    h.add(f"inline constexpr int64_t kReutersSmallIdSum = {sum(sum(s) for s in rx)};")
    h.array("int64_t", "kImdbSmallYTrain", ity)
    h.array("int64_t", "kImdbSmallYTest", iy)
    h.array("int64_t", "kImdbSmallTrainLengths", [len(s) for s in itx])
    h.array("int64_t", "kImdbSmallTestLengths", [len(s) for s in ix])
    h.array("int64_t", "kImdbSmallXTrain0", itx[0])
    h.array("int64_t", "kImdbSmallXTest0", ix[0])

    h.add("""
// ---- load_data results ---------------------------------------------------------
// -1 in an option means Python None. test_split is ignored for imdb.
// Counts, token totals and id sums cover the whole split; the y arrays are in
// full, the x rows are x_train[0], x_train[-1] and x_test[0].
struct KerasLoadOptions {
  int64_t num_words;
  int64_t skip_top;
  int64_t maxlen;
  double test_split;
  uint32_t seed;
  int64_t start_char;
  int64_t oov_char;
  int64_t index_from;
};
struct KerasLoadGolden {
  const char* name;
  KerasLoadOptions options;
  int64_t train_count, test_count;
  int64_t train_tokens, train_id_sum, test_tokens, test_id_sum;
  std::span<const int64_t> y_train, y_test;
  std::span<const int64_t> x_train_first, x_train_last, x_test_first;
};""")
    rows = []
    for name, over in REUTERS_CASES:
        opts = dict(DEFAULTS, **over)
        res = reuters_load(rx, ry, **opts)
        rows.append(emit_load_case(h, "Reuters", name, opts, res))
    h.add("inline constexpr KerasLoadGolden kReutersGolden[] = {")
    h.add("\n".join(rows))
    h.add("};")
    # The one wire holding the largest raw id (500 -> 503 after index_from).
    (xtr, _), _ = reuters_load(rx, ry, **DEFAULTS)
    order = list(numpy_perm(len(rx), DEFAULTS["seed"]))
    pos = order.index(next(k for k, s in enumerate(rx) if 500 in s))
    assert pos < len(xtr) and 503 not in xtr[pos] and len(xtr[pos]) == 35
    h.add(f"""// Defaults: x_train[{pos}] is the wire that held raw id 500. With num_words=None
// Keras sets num_words = max id (503) and keeps only ids < num_words, so that
// one occurrence becomes oov_char (2): the largest id never survives.""")
    h.add(f"inline constexpr std::size_t kReutersDefaultsMaxIdRow = {pos};")
    h.array("int64_t", "kReutersDefaultsXTrainMaxIdRow", xtr[pos])
    rows = []
    for name, over in IMDB_CASES:
        opts = dict(DEFAULTS, **over)
        opts["test_split"] = 0.0
        kw = {k: v for k, v in opts.items() if k != "test_split"}
        res = imdb_load(itx, ity, ix, iy, **kw)
        rows.append(emit_load_case(h, "Imdb", name, opts, res))
    h.add("inline constexpr KerasLoadGolden kImdbGolden[] = {")
    h.add("\n".join(rows))
    h.add("};")

    h.add("""
// ---- pad_sequences ---------------------------------------------------------------
// Input rows (row 2 is empty). maxlen -1 = None (width = longest row = 8).
// Output is int32, row-major rows x cols.""")
    in_spans = [h.array("int64_t", f"kPadInput{k}", s) for k, s in enumerate(PAD_INPUT)]
    h.add("inline constexpr std::span<const int64_t> kPadInput[] = {\n    "
          + ",\n    ".join(in_spans) + "};")
    h.add("""struct PadGolden {
  const char* name;
  int64_t maxlen;
  bool padding_post;
  bool truncating_post;
  int32_t value;
  int rows, cols;
  std::span<const int32_t> out;
};""")
    rows = []
    for name, maxlen, padding, trunc, value in PAD_CASES:
        out = pad(PAD_INPUT, maxlen, padding, trunc, value)
        flat = [v for r in out for v in r]
        h.add(f"inline constexpr int32_t kPad{camel(name)}[] = "
              f"{c_ints(flat, per_line=len(out[0]))};")
        rows.append(f"    {{\"{name}\", {-1 if maxlen is None else maxlen}, "
                    f"{'true' if padding == 'post' else 'false'}, "
                    f"{'true' if trunc == 'post' else 'false'}, {value}, "
                    f"{len(out)}, {len(out[0])}, std::span<const int32_t>(kPad{camel(name)})}},")
    h.add("inline constexpr PadGolden kPadGolden[] = {")
    h.add("\n".join(rows))
    h.add("};")
    h.add("\n}  // namespace mirror::testing")
    return "\n".join(h.lines) + "\n"


def check_pad():
    # The examples printed in Keras' pad_sequences docstring.
    s = [[1], [2, 3], [4, 5, 6]]
    assert pad(s) == [[0, 0, 1], [0, 2, 3], [4, 5, 6]]
    assert pad(s, value=-1) == [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]]
    assert pad(s, padding="post") == [[1, 0, 0], [2, 3, 0], [4, 5, 6]]
    assert pad(s, maxlen=2) == [[0, 1], [2, 3], [5, 6]]


def main():
    os.makedirs(FIX, exist_ok=True)
    check_pad()

    rx, ry = make_reuters()
    flat = [w for s in rx for w in s]
    assert flat.count(500) == 1 and max(flat) == 500 and min(flat) >= 1
    assert min(len(s) for s in rx) == 3 and max(len(s) for s in rx) == 60
    np.savez_compressed(os.path.join(FIX, "reuters_small.npz"), x=rx, y=ry)
    np.savez(os.path.join(FIX, "reuters_small_stored.npz"), x=rx, y=ry)

    itx, ity, ix, iy = make_imdb()
    np.savez_compressed(os.path.join(FIX, "imdb_small.npz"), x_train=itx,
                        y_train=ity, x_test=ix, y_test=iy)

    with open(os.path.join(FIX, "reuters_small_word_index.json"), "w") as fh:
        json.dump(word_index(), fh, separators=(",", ":"))
        fh.write("\n")

    make_bad(object_array([[1, 2, 3], [4, 5], [6]]),
             np.array([0, 1, 0], dtype=np.int64))

    # Read the good archives back the guarded way and compare.
    for name, want in (("reuters_small.npz", {"x": rx, "y": ry}),
                       ("reuters_small_stored.npz", {"x": rx, "y": ry}),
                       ("imdb_small.npz", {"x_train": itx, "y_train": ity,
                                           "x_test": ix, "y_test": iy})):
        with zipfile.ZipFile(os.path.join(FIX, name)) as zf:
            assert sorted(zf.namelist()) == sorted(k + ".npy" for k in want)
            for key, arr in want.items():
                fp = io.BytesIO(zf.read(key + ".npy"))
                np.lib.format.read_magic(fp)
                shape, _, dtype = np.lib.format.read_array_header_1_0(fp)
                if dtype == object:
                    got = GuardedUnpickler(fp).load()
                    assert [list(s) for s in got] == [list(s) for s in arr]
                else:
                    assert dtype == np.int64 and shape == arr.shape
                    got = np.frombuffer(fp.read(), dtype="<i8")
                    assert (got == arr).all()

    text = build_header([list(s) for s in rx], [int(v) for v in ry],
                        [list(s) for s in itx], [int(v) for v in ity],
                        [list(s) for s in ix], [int(v) for v in iy])
    with open(HEADER, "w") as fh:
        fh.write(text)
    print(f"wrote {HEADER} ({text.count(chr(10))} lines) and fixtures in {FIX}")


if __name__ == "__main__":
    main()
