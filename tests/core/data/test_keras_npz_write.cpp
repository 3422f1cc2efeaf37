// A text dataset written as Keras keeps its own (keras_npz_write.h): the pickle numpy writes for
// an object array of int lists, read back by our restricted unpickler; the .npz read back as
// Keras' Reuters gives the same sequences and labels (Keras' shuffle aside); what the layout
// cannot hold is refused. numpy and Keras read such files in bench/seed_keras.py.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "mirror/data/batch.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/keras_npz_write.h"
#include "mirror/data/npy.h"
#include "mirror/data/pickle.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
namespace fs = std::filesystem;

TEST(KerasNpzWrite, ObjectArraysOfIntListsPickleAsNumpyDoesAndReadBack) {
  const std::vector<std::vector<int64_t>> items = {{1, 2, 3}, {}, {70000, 255, 256, 0}, {-5}};
  const std::string p = pickle_object_array(items);
  EXPECT_EQ(p.substr(0, 2), std::string("\x80\x03", 2));
  const PickledObjectArray back = unpickle_object_array(p, "test", 1000);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(back.items, items);
  EXPECT_EQ(unpickle_object_array(pickle_object_array({}), "empty", 10).items.size(), 0u);
}

TEST(KerasNpzWrite, TheArchiveHoldsXAndYAsKerasLaysThemOut) {
  const mirror::testing::TempDir temp;
  const fs::path dir = temp.path();
  std::ofstream(dir / "r.npz", std::ios::binary) << keras_text_npz({{4, 5}, {6}}, {3, 1});
  const auto arrays = read_npz((dir / "r.npz").string(), {"x", "y"});
  EXPECT_TRUE(arrays.at("x").object);
  EXPECT_EQ(arrays.at("x").sequences, (std::vector<std::vector<int64_t>>{{4, 5}, {6}}));
  EXPECT_EQ(arrays.at("y").integers, (std::vector<int64_t>{3, 1}));
  EXPECT_THROW(keras_text_npz({{1}}, {}), std::invalid_argument);
}

// synthetic-text written out and read back as Keras' Reuters (load_data's defaults, padded to
// 300): every example comes back, as the same ids with the same label, in Keras' shuffled order.
TEST(KerasNpzWrite, ASyntheticSetReadBackAsReutersIsTheSameSet) {
  SyntheticTextOptions o;
  o.train_size = 120;
  o.val_size = 30;
  const auto synthetic = make_synthetic_text(o);
  std::vector<std::vector<int64_t>> sequences;
  std::vector<int64_t> labels;
  text_examples(*synthetic, sequences, labels);
  ASSERT_EQ(sequences.size(), 150u);
  const mirror::testing::TempDir temp;
  const fs::path dir = temp.path();
  std::ofstream(dir / "reuters.npz", std::ios::binary) << keras_text_npz(sequences, labels);
  KerasDatasetOptions k;
  k.data_dir = dir.string();
  k.allow_download = false;
  const auto reuters = load_keras_text_dataset(k);
  EXPECT_EQ(reuters->size(Split::kTrain), 120);  // Keras' test_split 0.2
  EXPECT_EQ(reuters->size(Split::kValidation), 30);
  // Each example as (its ids, its label), counted, on both sides.
  const auto examples = [](const Dataset& d) {
    std::map<std::pair<std::vector<int64_t>, int64_t>, int> out;
    for (const Split s : {Split::kTrain, Split::kValidation}) {
      const Batch b = d.slice(s, 0, d.size(s));
      const auto x = b.x.to(torch::kInt64).contiguous();
      for (int64_t i = 0; i < x.size(0); ++i) {
        const auto row = x[i];
        ++out[{std::vector<int64_t>(row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel()), b.y[i].item<int64_t>()}];
      }
    }
    return out;
  };
  // Keras' load_data without num_words takes the largest id as num_words and then keeps only ids
  // below it: the largest word comes back as out-of-vocabulary (2). Keras does so; so do we.
  const auto read = examples(*reuters), written = examples(*synthetic);
  int64_t largest = 0;
  for (const auto& [example, n] : written) largest = std::max(largest, *std::max_element(example.first.begin(), example.first.end()));
  int same = 0, with_largest_as_oov = 0;
  for (const auto& [example, n] : written) {
    if (read.count(example)) {
      same += std::min(n, read.at(example));
      continue;
    }
    auto oov = example;
    std::replace(oov.first.begin(), oov.first.end(), largest, int64_t{2});
    if (read.count(oov)) with_largest_as_oov += n;
  }
  EXPECT_EQ(same + with_largest_as_oov, 150) << same << " read back as written, " << with_largest_as_oov
                                             << " with the largest id as out-of-vocabulary";
  EXPECT_GE(with_largest_as_oov, 1);  // synthetic-text puts its largest id in the training split
}

TEST(KerasNpzWrite, WhatKerasLayoutCannotHoldIsRefused) {
  SyntheticTextOptions o;
  o.train_size = 4;
  o.val_size = 1;
  const auto d = make_synthetic_text(o);
  // An out-of-vocabulary mark (2) in a sequence has no rank.
  const Batch b = d->slice(Split::kTrain, 0, 4);
  auto x = b.x.clone();
  x[0][299] = 2;
  Dataset with_oov(d->info(), x, b.y, x.slice(0, 0, 0), b.y.slice(0, 0, 0));
  std::vector<std::vector<int64_t>> s;
  std::vector<int64_t> l;
  EXPECT_THROW(text_examples(with_oov, s, l), ConfigError);
}
