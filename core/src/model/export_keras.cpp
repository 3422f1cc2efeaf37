// A model as Keras 3 writes it: config.json and the whole file (keras_weights.cpp lays the weights
// out, keras_h5.cpp writes them as HDF5).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "mirror/model/keras_file.h"
#include "mirror/util/error.h"
#include "mirror/util/zip_write.h"

namespace mirror {

namespace {
// The Keras release whose file format this writes (checked by tests/tools/check_keras_export.py
// with PyPI's keras of scripts/python/keras.txt).
constexpr const char* kKerasVersion = "3.15.1";

// A name as Keras takes it: Keras refuses a '/' in a layer's or model's name (it separates the
// variables' paths), so it becomes '_'; everything else stays as written (it is data in JSON).
std::string keras_name(std::string name) {
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

nlohmann::json sizes(const std::vector<int64_t>& v) { return nlohmann::json(v); }

// [null, ...shape]: a Keras shape with its batch axis.
nlohmann::json batch_shape(const std::vector<int64_t>& shape) {
  nlohmann::json j = nlohmann::json::array({nullptr});
  for (int64_t d : shape) j.push_back(d);
  return j;
}

bool has_weights(LayerKind k) {
  return k == LayerKind::kEmbedding || k == LayerKind::kConv1D || k == LayerKind::kConv2D || k == LayerKind::kDense;
}

// The layer's own settings in Keras' names; Keras' defaults for what it computes with and
// nothing about training (initialisers, regularisers), which a loaded model does not need.
nlohmann::json layer_settings(const LayerSpec& l) {
  nlohmann::json c;
  const auto strides = [&l](const std::vector<int64_t>& fallback) { return sizes(l.strides.empty() ? fallback : l.strides); };
  switch (l.kind) {
    case LayerKind::kEmbedding:
      c["input_dim"] = l.input_dim;
      c["output_dim"] = l.output_dim;
      c["mask_zero"] = false;
      break;
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
      c["filters"] = l.units;
      c["kernel_size"] = sizes(l.kernel);
      c["strides"] = strides(std::vector<int64_t>(l.kernel.size(), 1));
      c["padding"] = l.same_padding ? "same" : "valid";
      c["data_format"] = "channels_last";
      c["dilation_rate"] = sizes(std::vector<int64_t>(l.kernel.size(), 1));
      c["groups"] = 1;
      c["activation"] = activation_name(l.activation);
      c["use_bias"] = l.use_bias;
      break;
    case LayerKind::kMaxPool1D:
    case LayerKind::kMaxPool2D:
      c["pool_size"] = sizes(l.pool);
      c["strides"] = strides(l.pool);
      c["padding"] = l.same_padding ? "same" : "valid";
      c["data_format"] = "channels_last";
      break;
    case LayerKind::kGlobalMaxPool1D:
    case LayerKind::kGlobalAveragePool1D:
      c["data_format"] = "channels_last";
      c["keepdims"] = false;
      break;
    case LayerKind::kFlatten:
      c["data_format"] = "channels_last";
      break;
    case LayerKind::kDense:
      c["units"] = l.units;
      c["activation"] = activation_name(l.activation);
      c["use_bias"] = l.use_bias;
      break;
    case LayerKind::kDropout:
      c["rate"] = l.rate;
      break;
    case LayerKind::kActivation:
      c["activation"] = activation_name(l.activation);
      break;
    case LayerKind::kCategoryEncoding:
      c["num_tokens"] = l.units;
      c["output_mode"] = l.count_mode ? "count" : "multi_hot";
      c["sparse"] = false;
      break;
  }
  return c;
}

// The shape layer `i` takes: the model's input, or what the layer before it gives.
const std::vector<int64_t>& input_of(const ModelAnalysis& a, size_t i) {
  return i == 0 ? a.input_shape : a.layers[i - 1].output_shape;
}
}  // namespace

nlohmann::json keras_model_config(const ModelAnalysis& analysis, const InputSpec& input, const std::string& name) {
  if (!analysis.ok()) throw ConfigError("cannot export a model with errors: " + analysis.describe_errors());
  nlohmann::json layers = nlohmann::json::array();
  layers.push_back({{"module", "keras.layers"},
                    {"class_name", "InputLayer"},
                    {"config", {{"batch_shape", batch_shape(input.shape)},
                                {"dtype", input.tokens ? "int32" : "float32"},
                                {"sparse", false},
                                {"name", "input_layer"}}},
                    {"registered_name", nullptr}});
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const LayerReport& r = analysis.layers[i];
    nlohmann::json config = layer_settings(r.resolved);
    config["name"] = keras_name(r.name);
    config["trainable"] = true;
    config["dtype"] = "float32";
    nlohmann::json layer = {{"module", "keras.layers"}, {"class_name", keras_type(r.resolved.kind)}, {"config", config},
                            {"registered_name", nullptr}};
    if (has_weights(r.resolved.kind)) layer["build_config"] = {{"input_shape", batch_shape(input_of(analysis, i))}};
    layers.push_back(std::move(layer));
  }
  return {{"module", "keras"},
          {"class_name", "Sequential"},
          {"config", {{"name", keras_name(name)}, {"trainable", true}, {"dtype", "float32"}, {"layers", layers},
                      {"build_input_shape", batch_shape(input.shape)}}},
          {"registered_name", nullptr},
          {"build_config", {{"input_shape", batch_shape(input.shape)}}}};
}

std::string keras_model_file(const ModelAnalysis& analysis, const InputSpec& input,
                             const std::vector<NamedWeights>& weights, const std::string& name,
                             const std::string& date_saved) {
  const nlohmann::json config = keras_model_config(analysis, input, name);
  const std::string h5 = keras_weights_h5(keras_layer_weights(analysis, weights), keras_name(name));
  const nlohmann::json metadata = {{"keras_version", kKerasVersion}, {"date_saved", date_saved}};
  return zip_archive({{"metadata.json", metadata.dump()}, {"config.json", config.dump()}, {"model.weights.h5", h5}});
}

}  // namespace mirror
