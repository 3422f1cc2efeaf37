#pragma once
// A trained model in the formats other programs read: an ONNX graph, and PyTorch source code
// whose state dict matches our parameter names. Plain data in, bytes or text out; no torch.

#include <cstdint>
#include <map>
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

// The public attributes (methods and fields) of torch.nn.Module in PyTorch 1.13 to 2.x, sorted:
// names a generated module's attribute must not take ("forward", "eval", "training", "to", ...).
// Private ones ("_modules", "__class__") are kept out by refusing a leading underscore instead.
const std::vector<std::string>& torch_module_attributes();

// The Python identifier each layer of `analysis` goes by in everything exported (model.py's
// attributes, model.pt's keys "<identifier>.weight", ONNX node and initializer names), keyed by
// the layer's name: unique_python_identifiers() of the layer names (util/python_literal.h), with
// the layer's Keras base name ("dense") as fallback and torch_module_attributes() refused. An
// ordinary name ("conv1d", "dense_1") is its own identifier. Pure.
std::map<std::string, std::string> python_layer_names(const ModelAnalysis& analysis);

// A parameter's name as exported: LibTorch's "<layer name>.<parameter>" ("conv1d.weight") with the
// layer's identifier from `identifiers` (python_layer_names()) in place of its name. Layer names
// hold no '.' (analyze() refuses them). Throws ConfigError when the name is of no layer there.
std::string exported_parameter_name(const std::map<std::string, std::string>& identifiers,
                                    const std::string& libtorch_name);

// The model as an ONNX ModelProto (IR version 7, opset kOnnxOpset), serialised. Node and
// initializer names come from python_layer_names(); the layer names themselves are data, in the
// metadata entry "mirror.layer_names" (a JSON object {identifier: name}). Its one input,
// "input", is a batch in Keras layout (batch, ...) of float32, or of int64 token ids when
// `input.tokens`; its one output, "output", is what the model returns, (batch, classes).
// Dropout is left out (the identity when predicting). `weights` must hold every parameter the
// model has (by LibTorch's name, "<layer name>.weight", and shape); throws ConfigError naming the first missing or misshapen one,
// or a layer that has no ONNX form. Pure.
std::string onnx_model(const ModelAnalysis& analysis, const InputSpec& input, const std::vector<NamedWeights>& weights,
                       const std::string& producer_version);

// Python source (PyTorch) defining `class Model(torch.nn.Module)` that computes what our model
// computes, with one attribute per layer named by python_layer_names(), so
// `Model().load_state_dict(torch.load(path))` takes a state dict whose keys use those names.
// Text not ours reaches the source only as escaped literals: `title` as TITLE, the layer names as
// the LAYER_NAMES table {identifier: name}. Throws ConfigError if `analysis` is not ok(). Pure.
std::string pytorch_model_source(const ModelAnalysis& analysis, const InputSpec& input, const std::string& title);

}  // namespace mirror
