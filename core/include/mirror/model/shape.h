#pragma once
// Shape inference and parameter counting for a ModelSpec on a given input, before any tensor
// exists, so that shape errors are reported per layer before training starts.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/model/layer_spec.h"

namespace mirror {

class Dataset;

struct InputSpec {
  std::vector<int64_t> shape;  // one example, Keras layout, no batch axis
  bool tokens = false;         // integer token ids (needs an Embedding first)
  int64_t vocab_size = 0;      // token inputs
  int64_t num_classes = 0;
};

// The dataset's description of its input, for model analysis.
InputSpec input_spec(const Dataset& dataset);

struct LayerReport {
  std::string name;                  // "conv1d_1"
  std::string type;                  // "Conv1D"
  std::vector<int64_t> output_shape; // empty when the layer has an error or follows one
  int64_t params = 0;
  std::string error;                 // empty when the layer fits
  LayerSpec resolved;                // the spec with dataset-derived sizes filled in
};

struct ModelAnalysis {
  std::vector<int64_t> input_shape;  // the input the analysis was made for (Keras layout)
  std::string initializer = "torch";  // copied from the spec
  bool train_on_probabilities = false;  // copied from the spec (layer_spec.h)
  std::vector<LayerReport> layers;
  int64_t total_params = 0;
  int64_t trainable_params = 0;
  std::string error;  // model-level problem (e.g. output does not match the classes); or empty
  bool ok() const;
  // "layer 3 conv1d_1 (Conv1D): kernel 5 is larger than the input length 3; ..." for every error.
  std::string describe_errors() const;
};

// Infers every layer's output shape and parameter count. Never throws on a bad model: errors
// are recorded on the offending layer (and on the model when the output does not give one logit
// per class). Pure function.
ModelAnalysis analyze(const ModelSpec& spec, const InputSpec& input);

}  // namespace mirror
