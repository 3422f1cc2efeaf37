// Keras-faithful text data: numpy's legacy shuffle, .npz/.npy/pickle reading, load_data and
// pad_sequences against golden values made by tests/tools/make_keras_fixtures.py with numpy.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <numeric>

#include <unistd.h>

#include "keras_golden.h"
#include "test_helpers.h"
#include "mirror/data/batch.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/keras_text.h"
#include "mirror/data/npy.h"
#include "mirror/data/pickle.h"
#include "mirror/util/error.h"
#include "test_paths.h"

// Lean builds (the GPU check's) leave out libzip and the downloader; their tests skip there.
#ifdef MIRROR_WITH_ZIP
#define REQUIRE_ZIP() static_assert(true)
#else
#define REQUIRE_ZIP() GTEST_SKIP() << "built with MIRROR_WITH_ZIP=OFF"
#endif
#ifdef MIRROR_WITH_DOWNLOADS
#define REQUIRE_DOWNLOADS() static_assert(true)
#else
#define REQUIRE_DOWNLOADS() GTEST_SKIP() << "built with MIRROR_WITH_DOWNLOADS=OFF"
#endif

using namespace mirror;
using namespace mirror::testing;
namespace fs = std::filesystem;

namespace {
const std::string kFixtures = mirror::testing::fixtures_dir();

std::vector<int64_t> vec(std::span<const int64_t> s) { return {s.begin(), s.end()}; }

KerasTextOptions to_options(const KerasLoadOptions& g) {
  KerasTextOptions o;
  if (g.num_words >= 0) o.num_words = g.num_words;
  o.skip_top = g.skip_top;
  if (g.maxlen >= 0) o.maxlen = g.maxlen;
  o.test_split = g.test_split;
  o.seed = g.seed;
  o.start_char = g.start_char >= 0 ? std::optional<int64_t>(g.start_char) : std::nullopt;
  o.oov_char = g.oov_char >= 0 ? std::optional<int64_t>(g.oov_char) : std::nullopt;
  o.index_from = g.index_from;
  return o;
}

void expect_split(const TextSplit& s, int64_t count, int64_t tokens, int64_t id_sum, std::span<const int64_t> y,
                  const std::string& name) {
  EXPECT_EQ(static_cast<int64_t>(s.x.size()), count) << name;
  int64_t t = 0, sum = 0;
  for (const auto& x : s.x) {
    t += static_cast<int64_t>(x.size());
    sum = std::accumulate(x.begin(), x.end(), sum);
  }
  EXPECT_EQ(t, tokens) << name;
  EXPECT_EQ(sum, id_sum) << name;
  EXPECT_EQ(s.y, vec(y)) << name;
}

}  // namespace

TEST(NumpyRandom, Mt19937MatchesNumpyRawOutputs) {
  NumpyLegacyRandom a(113), b(5489);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(a.next_uint32(), kMt19937Seed113First5[i]);
    EXPECT_EQ(b.next_uint32(), kMt19937Seed5489First5[i]);
  }
}

TEST(NumpyRandom, LegacyShuffleMatchesNumpyIndexForIndex) {
  for (const auto& g : kPermGolden) {
    std::vector<int64_t> idx;
    if (g.prior_n == 0) {
      idx = numpy_legacy_shuffled_range(g.n, g.seed);
    } else {
      // imdb's test order: the same generator, after shuffling the training indices.
      NumpyLegacyRandom rng(g.seed);
      for (int64_t i = g.prior_n - 1; i > 0; --i) rng.interval(static_cast<uint64_t>(i));
      idx.resize(static_cast<size_t>(g.n));
      std::iota(idx.begin(), idx.end(), int64_t{0});
      for (int64_t i = g.n - 1; i > 0; --i) std::swap(idx[i], idx[rng.interval(static_cast<uint64_t>(i))]);
    }
    for (int k = 0; k < g.count; ++k) {
      EXPECT_EQ(idx[static_cast<size_t>(k)], g.head[k]) << "n=" << g.n << " seed=" << g.seed << " head " << k;
      EXPECT_EQ(idx[static_cast<size_t>(g.n - g.count + k)], g.tail[k]) << "n=" << g.n << " seed=" << g.seed << " tail " << k;
    }
    std::vector<int64_t> sorted = idx;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < g.n; ++i) ASSERT_EQ(sorted[static_cast<size_t>(i)], i);
  }
}

TEST(Npz, ReadsKerasStyleObjectArraysStoredOrDeflated) {
  REQUIRE_ZIP();
  for (const char* file : {"reuters_small.npz", "reuters_small_stored.npz"}) {
    auto a = read_npz(kFixtures + "/keras/" + file, {"x", "y"});
    const auto& x = a.at("x");
    ASSERT_TRUE(x.object) << file;
    ASSERT_EQ(x.sequences.size(), kReutersSmallCount);
    int64_t sum = 0;
    for (size_t i = 0; i < x.sequences.size(); ++i) {
      EXPECT_EQ(static_cast<int64_t>(x.sequences[i].size()), kReutersSmallLengths[i]) << file << " row " << i;
      sum = std::accumulate(x.sequences[i].begin(), x.sequences[i].end(), sum);
    }
    EXPECT_EQ(sum, kReutersSmallIdSum);
    EXPECT_EQ(x.sequences.front(), vec(kReutersSmallX0));
    EXPECT_EQ(x.sequences.back(), vec(kReutersSmallXLast));
    EXPECT_EQ(a.at("y").integers, vec(kReutersSmallY));
  }
  auto imdb = read_npz(kFixtures + "/keras/imdb_small.npz", {"x_train", "y_train", "x_test", "y_test"});
  EXPECT_EQ(imdb.at("x_train").sequences.front(), vec(kImdbSmallXTrain0));
  EXPECT_EQ(imdb.at("x_test").sequences.front(), vec(kImdbSmallXTest0));
  EXPECT_EQ(imdb.at("y_test").integers, vec(kImdbSmallYTest));
}

TEST(KerasLoadData, ReutersMatchesKerasForEveryOptionSet) {
  REQUIRE_ZIP();
  auto a = read_npz(kFixtures + "/keras/reuters_small.npz", {"x", "y"});
  for (const auto& g : kReutersGolden) {
    const auto d = keras_reuters_load_data(a.at("x").sequences, a.at("y").integers, to_options(g.options));
    expect_split(d.train, g.train_count, g.train_tokens, g.train_id_sum, g.y_train, std::string(g.name) + " train");
    expect_split(d.test, g.test_count, g.test_tokens, g.test_id_sum, g.y_test, std::string(g.name) + " test");
    EXPECT_EQ(d.train.x.front(), vec(g.x_train_first)) << g.name;
    EXPECT_EQ(d.train.x.back(), vec(g.x_train_last)) << g.name;
    EXPECT_EQ(d.test.x.front(), vec(g.x_test_first)) << g.name;
  }
  // num_words=None: the largest id becomes the bound, so its single occurrence turns into oov.
  const auto d = keras_reuters_load_data(a.at("x").sequences, a.at("y").integers, {});
  EXPECT_EQ(d.num_words, kReutersSmallMaxId + 3);
  EXPECT_EQ(d.train.x[kReutersDefaultsMaxIdRow], vec(kReutersDefaultsXTrainMaxIdRow));
}

TEST(KerasLoadData, ImdbMatchesKeras) {
  REQUIRE_ZIP();
  auto a = read_npz(kFixtures + "/keras/imdb_small.npz", {"x_train", "y_train", "x_test", "y_test"});
  for (const auto& g : kImdbGolden) {
    const auto d = keras_imdb_load_data({a.at("x_train").sequences, a.at("y_train").integers},
                                        {a.at("x_test").sequences, a.at("y_test").integers}, to_options(g.options));
    expect_split(d.train, g.train_count, g.train_tokens, g.train_id_sum, g.y_train, std::string(g.name) + " train");
    expect_split(d.test, g.test_count, g.test_tokens, g.test_id_sum, g.y_test, std::string(g.name) + " test");
    EXPECT_EQ(d.train.x.front(), vec(g.x_train_first)) << g.name;
    EXPECT_EQ(d.train.x.back(), vec(g.x_train_last)) << g.name;
    EXPECT_EQ(d.test.x.front(), vec(g.x_test_first)) << g.name;
  }
}

TEST(KerasLoadData, ImpossibleOptionsAreRefused) {
  Sequences xs = {{5, 6}, {7}};
  std::vector<int64_t> ys = {0, 1};
  KerasTextOptions o;
  o.maxlen = 1;  // every sequence (with its start char) is at least 2 long
  EXPECT_NE(data_error([&] { keras_reuters_load_data(xs, ys, o); }).find("maxlen=1 leaves no sequence"), std::string::npos);
  o = {};
  o.test_split = 1.5;
  EXPECT_THROW(keras_reuters_load_data(xs, ys, o), ConfigError);
  EXPECT_THROW(keras_reuters_load_data(xs, {0}, {}), DataError);
}

TEST(PadSequences, MatchesKerasBothWays) {
  Sequences input;
  for (const auto& row : kPadInput) input.push_back(vec(row));
  for (const auto& g : kPadGolden) {
    PadOptions o;
    if (g.maxlen >= 0) o.maxlen = g.maxlen;
    o.padding = g.padding_post ? PadSide::kPost : PadSide::kPre;
    o.truncating = g.truncating_post ? PadSide::kPost : PadSide::kPre;
    o.value = g.value;
    const auto out = pad_sequences(input, o);
    ASSERT_EQ(out.size(0), g.rows) << g.name;
    ASSERT_EQ(out.size(1), g.cols) << g.name;
    std::vector<int64_t> expected(g.out.begin(), g.out.end());
    std::vector<int64_t> got(out.data_ptr<int64_t>(), out.data_ptr<int64_t>() + out.numel());
    EXPECT_EQ(got, expected) << g.name;
  }
  EXPECT_THROW(pad_sequences(input, PadOptions{0}), ConfigError);
}

TEST(BadFiles, EachGivesAClearErrorAndNothingElse) {
  REQUIRE_ZIP();
  const std::string bad = kFixtures + "/keras/bad/";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"foreign_global.npz", "refusing to load it"},
      {"bad_opcode.npz", "opcode 0x82"},
      {"huge_count.npz", "y.npy"},
      {"wrong_dtype.npz", "dtype '<f8' where integer labels"},
      {"missing_member.npz", "no member y.npy"},
      {"truncated.npz", "not a readable .npz"},
      {"not_zip.npz", "not a readable .npz"},
  };
  for (const auto& [file, expected] : cases) {
    const auto msg = data_error([&] { read_npz(bad + file, {"x", "y"}); });
    EXPECT_NE(msg.find(expected), std::string::npos) << file << ": " << msg;
    EXPECT_NE(msg.find(file), std::string::npos) << "the message names the file: " << msg;
  }
  EXPECT_NE(data_error([&] { read_npz(bad + "absent.npz", {"x"}); }).find("no such file"), std::string::npos);
}

TEST(BadFiles, HandMadePicklesAreBoundedAndInterpretedOnly) {
  // A .npy of dtype object whose pickle claims a 4 GiB string.
  auto npy = [](const std::string& pickle) {
    std::string header = "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }";
    header += std::string(63 - header.size() % 64, ' ') + "\n";
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out.push_back(static_cast<char>(header.size() & 0xff));
    out.push_back(static_cast<char>(header.size() >> 8));
    return out + header + pickle;
  };
  const std::string huge_string = std::string("\x80\x03X\xff\xff\xff\xff", 8) + "ab";
  EXPECT_NE(data_error([&] { parse_npy(npy(huge_string), "t"); }).find("runs past the end"), std::string::npos);
  const std::string builtins = "\x80\x02" "cbuiltins\neval\n" ".";
  EXPECT_NE(data_error([&] { parse_npy(npy(builtins), "t"); }).find("builtins.eval"), std::string::npos);
  EXPECT_NE(data_error([&] { parse_npy(npy(std::string("\x80\x03", 2)), "t"); }).find("runs past the end"), std::string::npos);
  EXPECT_NE(data_error([&] { parse_npy("\x93NUMPX", "t"); }).find("bad magic"), std::string::npos);
  // A protocol-2 pickle as Python 2's numpy wrote it (GLOBAL lines, SHORT_BINSTRING, INT
  // booleans) of a one-item object array holding [7, 300, -1].
  const std::string py2 = std::string("\x80\x02", 2) + "cnumpy.core.multiarray\n_reconstruct\nq" + "\x01" +
                          "cnumpy\nndarray\nq" + "\x02" + "K" + std::string(1, '\0') + "\x85" + "U" + "\x01" + "b" +
                          "\x87" + "R(K" + "\x01" + "K" + "\x01" + "\x85" + "cnumpy\ndtype\nU" + "\x02" + "O8I00\nI01\n" +
                          "\x87" + "R(K" + "\x03" + "U" + "\x01" + "|NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tbI00\n]]q" +
                          "\x03" + "(K" + "\x07" + "M," + "\x01" + "J\xff\xff\xff\xff" + "eatb.";
  const auto arr = parse_npy(npy(py2), "py2");
  ASSERT_EQ(arr.sequences.size(), 1u);
  EXPECT_EQ(arr.sequences[0], (std::vector<int64_t>{7, 300, -1}));
  // Protocol 4 as Python 3 writes a large array: FRAME, STACK_GLOBAL, MEMOIZE, LONG_BINPUT/GET,
  // one list split over two APPENDS batches, and a list object shared through the memo.
  std::string p4 = std::string("\x80\x04\x95", 3) + std::string(8, '\0') + "\x8c" + "\x15" + "numpy.core.multiarray" +
                   "\x94" + "\x8c" + "\x0c" + "_reconstruct" + "\x94" + "\x93" + "\x94" + "\x8c" + "\x05" + "numpy" +
                   "\x8c" + "\x07" + "ndarray" + "\x93" + "K" + std::string(1, '\0') + "\x85" + "C" + "\x01" + "b" + "\x87" +
                   "R(K" + "\x01" + "K" + "\x02" + "\x85" + "\x8c" + "\x05" + "numpy" + "\x8c" + "\x05" + "dtype" + "\x93" +
                   "\x8c" + "\x02" + "O8" + "\x89" + "\x88" + "\x87" + "R(K" + "\x03" + "\x8c" + "\x01" + "|NNNJ\xff\xff\xff\xff" +
                   "J\xff\xff\xff\xffK?tb" + "\x89" + "]" + "(]r" + std::string("\x00\x01\x00\x00", 4) + "(K" + "\x01" + "K" +
                   "\x02" + "e(K" + "\x03" + "\x8a" + "\x03" + std::string("\x40\x42\x0f", 3) + "ej" +
                   std::string("\x00\x01\x00\x00", 4) + "etb.";
  const auto big = parse_npy(npy(p4).replace(npy(p4).find("(1,)"), 4, "(2,)"), "p4");
  ASSERT_EQ(big.sequences.size(), 2u);
  EXPECT_EQ(big.sequences[0], (std::vector<int64_t>{1, 2, 3, 1000000}));
  EXPECT_EQ(big.sequences[1], big.sequences[0]);
}

TEST(KerasDatasets, LoadsAnNpzFromDataDirAndDecodesWithTheWordIndex) {
  REQUIRE_ZIP();
  TempDir dir;
  fs::copy_file(kFixtures + "/keras/reuters_small.npz", dir / "reuters.npz");
  fs::copy_file(kFixtures + "/keras/reuters_small_word_index.json", dir / "reuters_word_index.json");
  KerasDatasetOptions o;
  o.data_dir = dir.str();
  o.allow_download = false;
  o.pad.maxlen = 70;  // longer than every sequence (60 + the start id)
  const auto d = load_keras_text_dataset(o);
  EXPECT_EQ(d->size(Split::kTrain), 32);
  EXPECT_EQ(d->size(Split::kValidation), 8);
  EXPECT_EQ(d->info().input_shape, std::vector<int64_t>{70});
  EXPECT_EQ(d->info().num_classes, 46);  // Reuters' topics, whatever labels a small file uses
  EXPECT_EQ(d->info().class_names[3], "earn");
  // MAX_WORDS as the tutorial computes it: the largest id present + 1, below Keras' num_words.
  const auto all = torch::cat({d->slice(Split::kTrain, 0, 32).x, d->slice(Split::kValidation, 0, 8).x});
  EXPECT_EQ(d->info().vocab_size, all.max().item<int64_t>() + 1);
  EXPECT_LT(d->info().vocab_size, kReutersSmallMaxId + 3);
  ASSERT_TRUE(d->info().vocabulary);
  const auto row = d->slice(Split::kTrain, 0, 1).x[0];
  const std::string text = decode_tokens(d->info(), std::vector<int64_t>(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + 70));
  EXPECT_EQ(text.rfind("<start> ", 0), 0u) << text;
  EXPECT_EQ(text.find('?'), std::string::npos) << text;
}

TEST(KerasDatasets, MissingFileSaysWhereToPutIt) {
  TempDir dir, home;
  ::setenv("KERAS_HOME", home.str().c_str(), 1);
  KerasDatasetOptions o;
  o.data_dir = dir.str();
  o.allow_download = false;
  const auto msg = data_error([&] { load_keras_text_dataset(o); });
  ::unsetenv("KERAS_HOME");
  EXPECT_NE(msg.find("reuters.npz not found"), std::string::npos) << msg;
  EXPECT_NE(msg.find(home.str() + "/datasets"), std::string::npos) << msg;
  EXPECT_NE(msg.find("storage.googleapis.com/tensorflow/tf-keras-datasets/reuters.npz"), std::string::npos) << msg;
}

TEST(KerasDatasets, DownloadsIntoTheCacheAndChecksTheHash) {
  REQUIRE_DOWNLOADS();
  TempDir origin, home;
  fs::copy_file(kFixtures + "/keras/reuters_small.npz", origin / "reuters_small.npz");
  ::setenv("KERAS_HOME", home.str().c_str(), 1);
  const std::string good = sha256_of_file(origin / "reuters_small.npz");
  EXPECT_EQ(good.size(), 64u);
  const std::string url = "file://" + origin.str() + "/";
  const std::string path = find_or_download("reuters_small.npz", "", url, good, true);
  EXPECT_EQ(path, home.str() + "/datasets/reuters_small.npz");
  EXPECT_EQ(sha256_of_file(path), good);
  fs::remove(path);
  const auto msg = data_error([&] { find_or_download("reuters_small.npz", "", url, std::string(64, '0'), true); });
  EXPECT_NE(msg.find("expected 0000"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(path)) << "a file that failed its hash check must not stay in the cache";
  ::unsetenv("KERAS_HOME");
}

namespace {
int64_t resident_mib() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE) / (1 << 20);
}

std::string le32(uint32_t v) {
  std::string s;
  for (int k = 0; k < 4; ++k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  return s;
}
}  // namespace

// Pickles made to hurt (found by fuzzing): deep nesting crashed while the error unwound, a list
// appended to itself leaked, and a .npy shape whose product overflowed read as an empty array.
TEST(BadFiles, HostilePicklesNeitherCrashNorLeak) {
  // 300,000 tuples, each holding the one before: freeing them used to recurse once per level
  // and run off the stack (SIGSEGV) while the DataError unwound.
  const std::string deep = std::string("\x80\x02]", 3) + std::string(300000, '\x85') + ".";
  EXPECT_NE(data_error([&] { unpickle_object_array(deep, "deep", 1000); }).find("holds a tuple, not a numpy array"),
            std::string::npos);
  // A list holding 1 MiB of bytes and, through the memo, itself: a reference cycle that was never
  // freed. Sixty-four of them would keep 64 MiB.
  const std::string cyclic = std::string("\x80\x02]q\x00", 5) + "B" + le32(1 << 20) + std::string(1 << 20, 'x') +
                             std::string("ah\x00" "a.", 5);
  EXPECT_NE(data_error([&] { unpickle_object_array(cyclic, "cyclic", 1000); }).find("holds a list"), std::string::npos);
  [[maybe_unused]] const int64_t before = resident_mib();
  for (int k = 0; k < 64; ++k) EXPECT_THROW(unpickle_object_array(cyclic, "cyclic", 1000), DataError);
#ifndef __SANITIZE_ADDRESS__  // ASan holds freed memory in quarantine; its LeakSanitizer checks this instead
  EXPECT_LT(resident_mib() - before, 32) << "MiB kept after 64 self-referencing lists of 1 MiB";
#endif
  // Shapes whose product overflows int64 (2^32 x 2^32), or absurd beside a 0, are refused.
  auto npy = [](const std::string& shape) {
    std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': " + shape + ", }";
    header += std::string(63 - header.size() % 64, ' ') + "\n";
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out.push_back(static_cast<char>(header.size() & 0xff));
    out.push_back(static_cast<char>(header.size() >> 8));
    return out + header;
  };
  for (const char* shape : {"(4294967296, 4294967296)", "(0, 17179869184, 17179869184)"})
    EXPECT_NE(data_error([&] { parse_npy(npy(shape), "t"); }).find("far larger than any dataset"), std::string::npos) << shape;
  EXPECT_EQ(parse_npy(npy("(0, 3)"), "t").shape, (std::vector<int64_t>{0, 3}));  // a real empty array still reads
}
