#pragma once
// Declarative models in Keras' vocabulary. A ModelSpec is plain data: it can be written to and
// read from JSON, shown in a table, edited, and built into LibTorch modules.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

enum class LayerKind {
  kEmbedding,
  kConv1D,
  kConv2D,
  kMaxPool1D,
  kMaxPool2D,
  kGlobalMaxPool1D,
  kGlobalAveragePool1D,
  kFlatten,
  kDense,
  kDropout,
  kActivation,
  kCategoryEncoding,  // token ids -> multi-hot or count vector (bag of words)
};

enum class Activation { kLinear, kRelu, kSigmoid, kTanh, kSoftmax, kGelu, kElu };

// Sizes that come from the dataset when the spec says so ("vocab", "classes" in JSON).
inline constexpr int64_t kFromDataset = -1;

struct LayerSpec {
  LayerKind kind = LayerKind::kDense;
  std::string name;                 // empty: Keras-style automatic name (conv1d, conv1d_1, ...)
  int64_t units = 0;                // Dense units, Conv filters; kFromDataset: number of classes
  int64_t input_dim = 0;            // Embedding vocabulary; kFromDataset: dataset's vocab size
  int64_t output_dim = 0;           // Embedding width
  std::vector<int64_t> kernel;      // Conv kernel size (1 or 2 entries)
  std::vector<int64_t> pool;        // pool size (1 or 2 entries)
  std::vector<int64_t> strides;     // empty: 1 for conv, pool size for pooling
  bool same_padding = false;        // Keras padding="same" (else "valid")
  Activation activation = Activation::kLinear;
  double rate = 0.0;                // Dropout rate
  bool use_bias = true;
  bool count_mode = false;          // CategoryEncoding: output_mode "count" (else "multi_hot")
};

struct ModelSpec {
  std::string name = "sequential";
  std::vector<LayerSpec> layers;
  // Weight initialisation: "torch" (LibTorch's defaults) or "keras" (Embedding uniform(-0.05,
  // 0.05), Conv/Dense kernels Glorot-uniform, biases zero), for presets that reproduce Keras.
  std::string initializer = "torch";
  // What the engine's loss (cross-entropy, which expects logits and applies a softmax itself) is
  // given when the model ends in a softmax (softmax_output.h). false: the output as it is, so the
  // softmax is applied twice (the Keras tutorial's bug). true: the output taken as probabilities,
  // as Keras' categorical cross-entropy with from_logits=False takes them: training computes the
  // final softmax as log_softmax, so the loss is -log(probability of the true class). The model,
  // its parameters and its export are the same either way (the export outputs probabilities).
  bool train_on_probabilities = false;
};

// Keras' class name of a layer kind ("Conv1D", "MaxPooling1D", ...).
const char* keras_type(LayerKind kind);
// Keras' snake-case base name ("conv1d", "max_pooling1d", ...).
const char* keras_base_name(LayerKind kind);
const char* activation_name(Activation a);

// JSON round trip. The format is a Keras-like list:
//   {"name": "...", "layers": [{"type": "Conv1D", "filters": 64, "kernel_size": 5,
//                               "activation": "relu"}, ...]}
// from_json throws ConfigError naming the layer (index and type) and the offending field.
// model_from_json and load_model_file also take Keras' own model.to_json() output (see
// keras_import.h), so a Keras model file opens wherever a model file does.
nlohmann::json to_json(const ModelSpec& spec);
ModelSpec model_from_json(const nlohmann::json& j);
// Reads a model file; throws ConfigError if it is missing or malformed.
// A Keras file's notes (what was not imported, see keras_import.h) go to `keras_notes` when given.
ModelSpec load_model_file(const std::string& path, std::vector<std::string>* keras_notes = nullptr);
// Whether `path` is a Keras 3 .keras file (a zip), which holds trained weights beside the model
// (keras_file.h reads them); false for a JSON model file or one that cannot be read.
bool is_keras_archive(const std::string& path);

}  // namespace mirror
