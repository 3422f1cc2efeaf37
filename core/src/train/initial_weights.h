#pragma once
// A run's starting weights taken from a Keras 3 .keras file (TrainConfig::initial_weights).

#include <torch/torch.h>

#include <string>

#include "mirror/model/shape.h"

namespace mirror {

// The weights of the .keras file at `path` as one flat float32 tensor in the order and layouts of
// build_model(analysis)'s parameters (what MirroredStrategy::load_parameters takes). Throws
// ConfigError naming the file and what is wrong: not a .keras file, another model's weights, an
// unreadable HDF5 member.
torch::Tensor initial_parameters(const std::string& path, const ModelAnalysis& analysis);

}  // namespace mirror
