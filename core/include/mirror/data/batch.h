#pragma once
// One batch of a Dataset (dataset.h): what gather and slice hand out, as tensors.

#include <torch/types.h>

#include <cstdint>

#include "mirror/data/dataset.h"

namespace mirror {

// x of shape (B, input_shape...) and y of shape (B) with int64 class ids.
struct Batch {
  torch::Tensor x;
  torch::Tensor y;
  int64_t size() const { return y.defined() ? y.size(0) : 0; }
};

}  // namespace mirror
