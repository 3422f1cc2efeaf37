#pragma once
// A trained model in the formats other programs read: an ONNX graph, and PyTorch source code
// whose state dict matches our parameter names. Plain data in, bytes or text out; no torch.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/model/shape.h"

namespace mirror {

// One trained parameter, named as LibTorch's named_parameters() names it ("conv1d.weight"),
// in LibTorch's layout (a Linear's weight is (out, in)), values in C order.
struct NamedWeights {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

inline constexpr int64_t kOnnxOpset = 13;

// The model as an ONNX ModelProto (IR version 7, opset kOnnxOpset), serialised. Its one input,
// "input", is a batch in Keras layout (batch, ...) of float32, or of int64 token ids when
// `input.tokens`; its one output, "output", is what the model returns, (batch, classes).
// Dropout is left out (the identity when predicting). `weights` must hold every parameter the
// model has (by name and shape); throws ConfigError naming the first missing or misshapen one,
// or a layer that has no ONNX form. Pure.
std::string onnx_model(const ModelAnalysis& analysis, const InputSpec& input, const std::vector<NamedWeights>& weights,
                       const std::string& producer_version);

// Python source (PyTorch) defining `class Model(torch.nn.Module)` that computes what our model
// computes, with parameters named as ours, so `Model().load_state_dict(torch.load(path))` takes
// the exported state dict. Throws ConfigError if `analysis` is not ok(). Pure.
std::string pytorch_model_source(const ModelAnalysis& analysis, const InputSpec& input, const std::string& title);

}  // namespace mirror
