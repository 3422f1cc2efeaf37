#pragma once
// A built model's trained parameters as the exporters take them.

#include <torch/torch.h>

#include <vector>

#include "mirror/model/export.h"

namespace mirror::testing {

// Every parameter of `model`, named as LibTorch names it ("conv1d.weight").
inline std::vector<NamedWeights> weights_of(torch::nn::Sequential& model) {
  std::vector<NamedWeights> out;
  for (const auto& p : model->named_parameters()) {
    const auto t = p.value().detach().contiguous();
    out.push_back({p.key(), t.sizes().vec(), std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel())});
  }
  return out;
}

}  // namespace mirror::testing
