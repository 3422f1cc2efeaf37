// The "texts" dataset: folders of texts written by the test, read as Keras'
// text_dataset_from_directory + TextVectorization (adapted on the training split) read them,
// checked by hand and against a Python reimplementation of Keras' rules (numpy for the split
// and the vocabulary's sort, exactly as Keras calls it).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/directory_index.h"
#include "mirror/data/load_progress.h"
#include "mirror/data/text_folder.h"
#include "mirror/util/error.h"
#include "test_helpers.h"
#include "util/python_runner.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;
using testing::data_error;
using testing::TempDir;
using testing::write_file;

void write_text(const TempDir& dir, const std::string& relative, const std::string& text) {
  const fs::path path = dir.path() / relative;
  fs::create_directories(path.parent_path());
  write_file(path, text);
}

// Three classes of `per_class` texts each; every text holds a word of its own ("uniqCkI").
void write_three_classes(const TempDir& dir, int per_class) {
  const char* classes[] = {"sport", "weather", "markets"};
  const char* words[] = {"Goal! The team won, again.", "Rain; then: SUN... then rain?", "Stocks fell—bonds rose (a lot)."};
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < per_class; ++i) {
      std::string text = fmt::format("{} uniq{}k{}", words[c], c, i);
      for (int r = 0; r < i % 4; ++r) text += fmt::format("\n{}", words[(c + r) % 3]);
      write_text(dir, fmt::format("{}/{:03d}.txt", classes[c], i), text);
    }
}

std::vector<int64_t> row(const torch::Tensor& x, int64_t i) {
  auto r = x[i].contiguous();
  return {r.data_ptr<int64_t>(), r.data_ptr<int64_t>() + r.numel()};
}

TextFolderOptions options_for(const TempDir& dir) {
  TextFolderOptions o;
  o.dir = dir.str();
  return o;
}

TEST(TextFolder, ClassesCountsAndInfoFollowTheFolder) {
  TempDir dir;
  write_three_classes(dir, 10);
  write_text(dir, "weather/notes.md", "not a text file");  // only .txt counts
  write_text(dir, "loose.txt", "lies directly in the folder: no class");
  const auto ds = load_text_folder(options_for(dir));
  const DatasetInfo& info = ds->info();
  EXPECT_EQ(info.name, "texts");
  EXPECT_EQ(info.kind, InputKind::kTokens);
  EXPECT_EQ(info.class_names, (std::vector<std::string>{"markets", "sport", "weather"}));
  EXPECT_EQ(info.num_classes, 3);
  EXPECT_EQ(info.file_count, 30);
  EXPECT_EQ(ds->size(Split::kValidation), 6);  // int(0.2 * 30)
  EXPECT_EQ(ds->size(Split::kTrain), 24);
  const auto tc = ds->class_counts(Split::kTrain), vc = ds->class_counts(Split::kValidation);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(tc[c] + vc[c], 10);
  ASSERT_TRUE(info.vocabulary);
  EXPECT_EQ(info.vocab_size, static_cast<int64_t>(info.vocabulary->size()));
  EXPECT_EQ(info.vocabulary->at(0), "");
  EXPECT_EQ(info.vocabulary->at(1), "[UNK]");
  ASSERT_EQ(info.input_shape.size(), 1u);
  EXPECT_GE(info.input_shape[0], 6);
  EXPECT_LE(info.input_shape[0], 500);
  EXPECT_LT(ds->slice(Split::kTrain, 0, 24).x.max().item<int64_t>(), info.vocab_size);
}

TEST(TextFolder, VocabularyIsAdaptedOnTheTrainingSplitOnly) {
  TempDir dir;
  write_three_classes(dir, 10);
  const auto ds = load_text_folder(options_for(dir));
  // Which files Keras puts in each split, from the same listing and split.
  const auto index = index_directory(dir.str(), {".txt"}, false);
  const auto split = keras_split(static_cast<int64_t>(index.files.size()), 42, 0.2);
  const std::set<std::string> vocab(ds->info().vocabulary->begin(), ds->info().vocabulary->end());
  auto unique_word = [&](int64_t i) {
    const std::string name = fs::path(index.relative_files[i]).stem().string();  // "007"
    const std::string cls = fs::path(index.relative_files[i]).parent_path().string();
    const int c = cls == "sport" ? 0 : cls == "weather" ? 1 : 2;
    return fmt::format("uniq{}k{}", c, std::stoi(name));
  };
  for (int64_t i : split.train) EXPECT_TRUE(vocab.count(unique_word(i))) << unique_word(i);
  ASSERT_FALSE(split.validation.empty());
  for (int64_t i : split.validation) EXPECT_FALSE(vocab.count(unique_word(i))) << unique_word(i);
  // A validation text's own word is out of vocabulary: some id 1 in every validation row.
  for (int64_t r = 0; r < ds->size(Split::kValidation); ++r) {
    const auto ids = row(ds->slice(Split::kValidation, r, r + 1).x, 0);
    EXPECT_NE(std::find(ids.begin(), ids.end(), 1), ids.end()) << "validation row " << r;
  }
}

TEST(TextFolder, PadsAndTruncatesAtTheEndToTheSequenceLength) {
  TempDir dir;
  write_text(dir, "a/1.txt", "one two three four five six");
  write_text(dir, "a/2.txt", "");  // an empty file: a text of no tokens
  write_text(dir, "b/1.txt", "one");
  write_text(dir, "b/2.txt", "two two");
  TextFolderOptions o = options_for(dir);
  o.validation_split = 0;
  o.output_sequence_length = 4;
  const auto ds = load_text_folder(o);
  EXPECT_EQ(ds->info().input_shape, (std::vector<int64_t>{4}));
  // Counts: two 3, one 2, then three/six/four/five once each, in descending byte order.
  EXPECT_EQ(*ds->info().vocabulary,
            (std::vector<std::string>{"", "[UNK]", "two", "one", "three", "six", "four", "five"}));
  std::map<std::vector<int64_t>, int64_t> rows;  // row -> label (the split's order is shuffled)
  const auto all = ds->slice(Split::kTrain, 0, 4);
  for (int64_t i = 0; i < 4; ++i) rows[row(all.x, i)] = all.y[i].item<int64_t>();
  EXPECT_EQ(rows.at({3, 2, 4, 6}), 0);  // truncated after 4 ids
  EXPECT_EQ(rows.at({0, 0, 0, 0}), 0);  // the empty file
  EXPECT_EQ(rows.at({3, 0, 0, 0}), 1);  // padded after
  EXPECT_EQ(rows.at({2, 2, 0, 0}), 1);
}

TEST(TextFolder, DefaultLengthIsTheLongestTrainingTextBetween16And500) {
  TempDir dir;
  write_text(dir, "a/1.txt", "w1 w2 w3");
  write_text(dir, "b/1.txt", "w1 w2 w3 w4 w5 w6 w7");
  TextFolderOptions o = options_for(dir);
  o.validation_split = 0;
  EXPECT_EQ(load_text_folder(o)->info().input_shape, (std::vector<int64_t>{kMinDefaultTextSequenceLength}));
  write_text(dir, "b/1.txt", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20");
  EXPECT_EQ(load_text_folder(o)->info().input_shape, (std::vector<int64_t>{20}));
  std::string long_text;
  for (int i = 0; i < 600; ++i) long_text += fmt::format("w{} ", i);
  write_text(dir, "b/1.txt", long_text);
  EXPECT_EQ(load_text_folder(o)->info().input_shape, (std::vector<int64_t>{kMaxDefaultTextSequenceLength}));
}

TEST(TextFolder, MaxTokensCutsTheVocabularyAndMoreWordsBecomeOov) {
  TempDir dir;
  write_text(dir, "a/1.txt", "x x x y y z");
  write_text(dir, "b/1.txt", "x y q");
  TextFolderOptions o = options_for(dir);
  o.validation_split = 0;
  o.max_tokens = 4;
  o.output_sequence_length = 3;
  const auto ds = load_text_folder(o);
  EXPECT_EQ(*ds->info().vocabulary, (std::vector<std::string>{"", "[UNK]", "x", "y"}));
  EXPECT_EQ(ds->info().vocab_size, 4);
  std::set<std::vector<int64_t>> rows;
  for (int64_t i = 0; i < 2; ++i) rows.insert(row(ds->slice(Split::kTrain, 0, 2).x, i));
  EXPECT_EQ(rows, (std::set<std::vector<int64_t>>{{2, 2, 2}, {2, 3, 1}}));
  o.max_tokens = 1;
  EXPECT_THROW(load_text_folder(o), ConfigError);
}

TEST(TextFolder, BadInputsNameTheFileOrFolder) {
  // Folders of two or three files: no validation split (0.2 of them would hold out none).
  auto load_all = [](const TempDir& dir) {
    TextFolderOptions o = options_for(dir);
    o.validation_split = 0;
    load_text_folder(o);
  };
  {
    TempDir dir;
    write_text(dir, "a/good.txt", "fine");
    write_text(dir, "b/latin1.txt", "line one\ncaf\xe9 au lait");
    const std::string msg = data_error([&] { load_all(dir); });
    EXPECT_NE(msg.find("latin1.txt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("not UTF-8"), std::string::npos) << msg;
    EXPECT_NE(msg.find("0xE9"), std::string::npos) << msg;
    EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  }
  {
    TempDir dir;
    write_text(dir, "only/a.txt", "one class");
    write_text(dir, "only/b.txt", "is not enough");
    const std::string msg = data_error([&] { load_all(dir); });
    EXPECT_NE(msg.find(dir.str()), std::string::npos) << msg;
  }
  {
    TempDir dir;
    write_text(dir, "a/a.txt", "text");
    write_text(dir, "a/b.txt", "text");
    write_text(dir, "empty_class/readme.md", "no texts here");
    const std::string msg = data_error([&] { load_all(dir); });
    EXPECT_NE(msg.find("empty_class"), std::string::npos) << msg;
  }
  {
    TempDir dir;
    write_text(dir, "a/a.txt", "text");
    write_text(dir, "b/huge.txt", std::string(static_cast<size_t>(kMaxTextFileBytes) + 1, 'x'));
    const std::string msg = data_error([&] { load_all(dir); });
    EXPECT_NE(msg.find("huge.txt"), std::string::npos) << msg;
    EXPECT_NE(msg.find("10 MiB"), std::string::npos) << msg;
  }
  {
    TempDir dir;
    const std::string msg = data_error([&] {
      TextFolderOptions o;
      o.dir = dir / "nowhere";
      load_text_folder(o);
    });
    EXPECT_NE(msg.find("nowhere"), std::string::npos) << msg;
  }
}

TEST(TextFolder, ReportsProgressWhileReading) {
  TempDir dir;
  write_three_classes(dir, 4);
  std::vector<LoadProgress> seen;
  {
    ScopedLoadProgress progress([&](const LoadProgress& p) { seen.push_back(p); });
    load_text_folder(options_for(dir));
  }
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().done, 12);
  EXPECT_EQ(seen.back().total, 12);
  EXPECT_NE(seen.back().what.find("texts"), std::string::npos);
}

TEST(TextFolder, TheRegistryEntryPassesTheOptions) {
  TempDir dir;
  write_three_classes(dir, 5);
  const DatasetEntry* entry = find_dataset("texts");
  ASSERT_NE(entry, nullptr);
  EXPECT_TRUE(entry->uses.data_dir && entry->uses.num_words && entry->uses.sequence_length &&
              entry->uses.validation_split && entry->uses.seed);
  DatasetOptions o;
  o.name = "texts";
  o.data_dir = dir.str();
  o.num_words = 6;
  o.sequence_length = 9;
  o.validation_split = 0.4;
  EXPECT_TRUE(dataset_present(o));
  const auto ds = load_dataset(o);
  EXPECT_EQ(ds->info().vocab_size, 6);
  EXPECT_EQ(ds->info().input_shape, (std::vector<int64_t>{9}));
  EXPECT_EQ(ds->size(Split::kValidation), 6);  // int(0.4 * 15)
  o.data_dir = dir / "nowhere";
  std::string why;
  EXPECT_FALSE(dataset_present(o, &why));
  EXPECT_NE(why.find("nowhere"), std::string::npos);
}

TEST(TextFolder, SameFilesSameHashAnotherWordAnotherHash) {
  TempDir a, b;
  write_three_classes(a, 3);
  write_three_classes(b, 3);
  const auto ha = load_text_folder(options_for(a))->info().content_hash;
  EXPECT_EQ(ha, load_text_folder(options_for(b))->info().content_hash);
  if (ha.empty()) GTEST_SKIP() << "this build has no SHA-256";
  write_text(b, "sport/000.txt", "changed");
  EXPECT_NE(ha, load_text_folder(options_for(b))->info().content_hash);
}

// Keras' rules in Python: index_directory (flat class folders), the split, TextVectorization's
// standardization, whitespace split, adapt on the training texts (np.lexsort as Keras sorts) and
// output_sequence_length. Prints the vocabulary (hex) and each split's rows with their labels.
constexpr const char* kKerasTexts = R"(
import os, sys
import numpy as np
directory, seed, validation_split, max_tokens, length = sys.argv[1].split('|')
seed, validation_split, max_tokens, length = int(seed), float(validation_split), int(max_tokens), int(length)
classes = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
paths, labels = [], []
for label, c in enumerate(classes):
    for name in sorted(os.listdir(os.path.join(directory, c))):
        if name.lower().endswith('.txt'):
            paths.append(os.path.join(directory, c, name))
            labels.append(label)
rng = np.random.RandomState(seed)
rng.shuffle(paths)
labels = np.array(labels, dtype='int32')
rng = np.random.RandomState(seed)
rng.shuffle(labels)
num_val = int(validation_split * len(paths))
train = list(zip(paths[:-num_val], labels[:-num_val]))
val = list(zip(paths[-num_val:], labels[-num_val:]))
PUNCT = b'!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\''
def tokens(path):
    data = open(path, 'rb').read().lower()      # tf.strings.lower: ASCII only
    data = data.translate(None, PUNCT)         # regex_replace of the punctuation class
    return data.split()                        # tf.strings.split: ASCII whitespace
counts = {}
for path, _ in train:
    for t in tokens(path):
        counts[t] = counts.get(t, 0) + 1
counts.pop(b'', None); counts.pop(b'[UNK]', None)
toks = np.array(list(counts.keys()), dtype=object)
cnts = np.array(list(counts.values()), dtype=np.int64)
order = np.lexsort((toks, cnts))[::-1]
if max_tokens:
    order = order[:max_tokens - 2]
vocab = [b'', b'[UNK]'] + [toks[i] for i in order]
index = {t: i for i, t in enumerate(vocab)}
print('vocab', ' '.join(t.hex() or '-' for t in vocab))
for name, rows in (('train', train), ('val', val)):
    for path, label in rows:
        ids = [index.get(t, 1) for t in tokens(path)][:length]
        ids += [0] * (length - len(ids))
        print(name, label, ' '.join(map(str, ids)))
)";

std::string ours(const Dataset& ds) {
  std::ostringstream out;
  out << "vocab";
  for (const auto& t : *ds.info().vocabulary) out << ' ' << (t.empty() ? "-" : testing::hex_bytes(t));
  out << '\n';
  for (auto [name, split] : {std::pair{"train", Split::kTrain}, std::pair{"val", Split::kValidation}}) {
    const auto b = ds.slice(split, 0, ds.size(split));
    for (int64_t i = 0; i < b.size(); ++i) {
      out << name << ' ' << b.y[i].item<int64_t>();
      const auto ids = row(b.x, i);
      for (int64_t id : ids) out << ' ' << id;
      out << '\n';
    }
  }
  return out.str();
}

TEST(TextFolder, MatchesAPythonReimplementationOfKerasRules) {
  if (!testing::python_has("numpy")) GTEST_SKIP() << "no python3 with numpy here";
  TempDir dir, work;
  // Texts that exercise the rules: case, ASCII and Unicode punctuation, non-ASCII letters,
  // whitespace of every kind, ties, an empty file, a class name with a space.
  const char* pool[] = {"The cat sat.", "the CAT, the dog!", "Ünïcödé — “quotes” ¡olé!", "a\tb\nc\vd\fe\rf  g",
                        "don't (stop) me-now; 3.14 % [UNK]", "x y z x y x", "", "É é É ÉCOLE école"};
  int k = 0;
  for (const char* cls : {"alpha", "beta gamma", "delta"})
    for (int i = 0; i < 9; ++i, ++k)
      write_text(dir, fmt::format("{}/t{}.txt", cls, i),
                 fmt::format("{} {} w{}", pool[k % 8], pool[(k * 3 + 1) % 8], k % 5));
  for (auto [seed, split, max_tokens, length] : {std::tuple{uint64_t{42}, 0.2, int64_t{0}, int64_t{12}},
                                                 std::tuple{uint64_t{7}, 0.34, int64_t{9}, int64_t{5}}}) {
    TextFolderOptions o = options_for(dir);
    o.seed = seed;
    o.validation_split = split;
    o.max_tokens = max_tokens;
    o.output_sequence_length = length;
    const auto ds = load_text_folder(o);
    const auto want = testing::run_python(work.path(), kKerasTexts,
                                          fmt::format("{}|{}|{}|{}|{}", dir.str(), seed, split, max_tokens, length));
    ASSERT_TRUE(want.has_value());
    EXPECT_EQ(ours(*ds), *want) << "seed " << seed << " split " << split;
  }
}

}  // namespace
}  // namespace mirror
