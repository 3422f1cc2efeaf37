// Starting a run from a .keras file's weights: read (keras_file.h), turned into LibTorch's
// layouts, laid out as the replicas' flat parameters.
// Tested by tests/core/model/test_keras_weights.cpp.
#include "initial_weights.h"

#include <fmt/format.h>

#include <map>

#include "mirror/model/builder.h"
#include "mirror/model/keras_file.h"
#include "mirror/util/error.h"

namespace mirror {

torch::Tensor initial_parameters(const std::string& path, const ModelAnalysis& analysis) {
  std::vector<NamedWeights> weights;
  try {
    weights = weights_from_keras(analysis, keras_file_weights(path), path);
  } catch (const DataError& e) {
    throw ConfigError(fmt::format("initial weights: {}", e.what()));
  }
  std::map<std::string, const NamedWeights*> by_name;
  for (const auto& w : weights) by_name[w.name] = &w;
  torch::NoGradGuard no_grad;
  auto model = build_model(analysis);
  std::vector<torch::Tensor> flat;
  for (const auto& p : model->named_parameters()) {
    const auto it = by_name.find(p.key());
    if (it == by_name.end() || it->second->shape != p.value().sizes().vec())
      throw ConfigError(fmt::format("initial weights: {} holds nothing that fits {} ({})", path, p.key(),
                                    it == by_name.end() ? "missing" : "another shape"));
    const NamedWeights& w = *it->second;
    flat.push_back(torch::from_blob(const_cast<float*>(w.values.data()), {static_cast<int64_t>(w.values.size())},
                                    torch::kFloat32).clone());
  }
  return flat.empty() ? torch::empty({0}, torch::kFloat32) : torch::cat(flat);
}

}  // namespace mirror
