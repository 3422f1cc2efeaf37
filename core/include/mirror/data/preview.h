#pragma once
// Plain-data views of a dataset for display (the GUI never touches a tensor).

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/data/dataset.h"

namespace mirror {

struct ExamplePreview {
  int64_t index = 0;
  int64_t label = 0;
  std::string label_name;
  std::vector<int64_t> shape;  // of one example, Keras layout
  std::vector<float> values;   // float inputs, flattened (images: rows x cols x channels)
  std::string text;            // token inputs: decoded words, or a count of ids without a word index
};

// Up to `count` examples from the start of a split. Thread-safe (the dataset is immutable).
std::vector<ExamplePreview> preview_examples(const Dataset& dataset, Split split, int64_t count);
// The examples at `indices` of a split, in that order; indices outside the split are left out.
// Thread-safe.
std::vector<ExamplePreview> preview_examples(const Dataset& dataset, Split split, const std::vector<int64_t>& indices);

}  // namespace mirror
