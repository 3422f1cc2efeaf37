#include "mirror/model/keras_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "mirror/model/softmax_output.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
// Keras' class names that ModelSpec reads (its own spellings and Keras' aliases).
const std::set<std::string> kSupported = {
    "Embedding",      "Conv1D",     "Conv2D",           "MaxPooling1D",       "MaxPooling2D",        "MaxPool1D",
    "MaxPool2D",      "GlobalMaxPooling1D", "GlobalMaxPool1D", "GlobalAveragePooling1D", "GlobalAvgPool1D",
    "Flatten",        "Dense",      "Dropout",          "Activation",         "CategoryEncoding"};
// Settings of those layers that only shape training in Keras; a model without them computes the same.
constexpr const char* kTrainingOnly[] = {
    "kernel_initializer", "bias_initializer",   "embeddings_initializer", "kernel_regularizer",
    "bias_regularizer",   "activity_regularizer", "embeddings_regularizer", "kernel_constraint",
    "bias_constraint",    "embeddings_constraint", "noise_shape",           "seed"};

// A size given as an int or a list: true when every entry is 1.
bool all_ones(const nlohmann::json& v) {
  if (v.is_number_integer()) return v.get<int64_t>() == 1;
  if (!v.is_array()) return false;
  return std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return e.is_number_integer() && e.get<int64_t>() == 1; });
}

// Keras 3 may write an activation as a serialised object whose config is the function's name.
nlohmann::json activation_of(const nlohmann::json& v) {
  if (v.is_object() && v.contains("config") && v.at("config").is_string()) return v.at("config");
  return v;
}

// Keras' default initialisers, which the imported model's "keras" initializer reproduces.
bool is_default_initializer(const std::string& key, const nlohmann::json& v) {
  if (key.find("initializer") == std::string::npos) return false;
  const std::string cls = v.is_object() && v.contains("class_name") && v.at("class_name").is_string()
                              ? v.at("class_name").get<std::string>()
                              : (v.is_string() ? v.get<std::string>() : "");
  if (key == "kernel_initializer") return cls == "GlorotUniform" || cls == "glorot_uniform";
  if (key == "bias_initializer") return cls == "Zeros" || cls == "zeros";
  if (key == "embeddings_initializer") {
    if (cls == "uniform") return true;
    if (cls != "RandomUniform") return false;
    const auto c = v.value("config", nlohmann::json::object());
    return c.value("minval", -0.05) == -0.05 && c.value("maxval", 0.05) == 0.05;
  }
  return false;
}

std::string shape_text(const nlohmann::json& shape) {
  std::string out;
  for (const auto& d : shape) out += (out.empty() ? "" : ", ") + (d.is_null() ? std::string("None") : d.dump());
  return "(" + out + ")";
}

// What in layer `config` of class `type` ModelSpec cannot express; empty when it all fits.
std::string unsupported_setting(const std::string& type, const nlohmann::json& config) {
  if (config.contains("data_format") && config.at("data_format").is_string() &&
      config.at("data_format").get<std::string>() != "channels_last" && type != "Flatten")
    return fmt::format("data_format \"{}\" (only channels_last)", config.at("data_format").get<std::string>());
  if (config.contains("dilation_rate") && !all_ones(config.at("dilation_rate")))
    return fmt::format("dilation_rate {} (only 1)", config.at("dilation_rate").dump());
  if (config.contains("groups") && !all_ones(config.at("groups")))
    return fmt::format("groups {} (only 1)", config.at("groups").dump());
  if (config.value("keepdims", false)) return "keepdims true";
  return "";
}
}  // namespace

bool is_keras_model_json(const nlohmann::json& j) {
  return j.is_object() && j.contains("class_name") && j.contains("config");
}

namespace {
ModelSpec from_keras(const nlohmann::json& j, std::vector<std::string>* notes) {
  if (!is_keras_model_json(j) || !j.at("class_name").is_string())
    throw ConfigError("Keras model: expected model.to_json() output, an object with \"class_name\" and \"config\"");
  const std::string model_class = j.at("class_name").get<std::string>();
  if (model_class != "Sequential")
    throw ConfigError(fmt::format("Keras model: a {} model; only Sequential models (one layer after another) can "
                                  "be opened here", model_class));
  const auto& config = j.at("config");
  // Keras 2.0-2.1 wrote a Sequential's config as the list of layers itself.
  const nlohmann::json* layers = config.is_array() ? &config : nullptr;
  if (config.is_object() && config.contains("layers") && config.at("layers").is_array()) layers = &config.at("layers");
  if (!layers) throw ConfigError("Keras model: the Sequential's config holds no \"layers\" list");

  std::vector<std::string> said;
  auto note = [&](std::string text) {
    if (std::find(said.begin(), said.end(), text) == said.end()) said.push_back(std::move(text));
  };
  nlohmann::json ours = nlohmann::json::array();
  std::vector<std::string> problems;
  bool input_seen = false;
  std::map<std::string, int> auto_named;  // automatic names given so far, by base name
  std::vector<std::string> sized_by_data;  // layers whose size the vocabulary decides in Keras tutorials
  std::string last_dense;
  for (size_t i = 0; i < layers->size(); ++i) {
    const auto& lj = (*layers)[i];
    const std::string where = fmt::format("layer {}", i + 1);
    if (!lj.is_object() || !lj.contains("class_name") || !lj.at("class_name").is_string() ||
        (lj.contains("config") && !lj.at("config").is_object())) {
      problems.push_back(fmt::format("{}: not a layer (expected {{\"class_name\": ..., \"config\": {{...}}}})", where));
      continue;
    }
    const std::string type = lj.at("class_name").get<std::string>();
    const nlohmann::json cfg = lj.value("config", nlohmann::json::object());
    const std::string name = cfg.contains("name") && cfg.at("name").is_string() ? cfg.at("name").get<std::string>() : "";
    const std::string label = name.empty() ? fmt::format("{} ({})", where, type) : fmt::format("{} '{}' ({})", where, name, type);
    if (type == "InputLayer") {
      for (const char* key : {"batch_shape", "batch_input_shape"})
        if (cfg.contains(key) && cfg.at(key).is_array())
          note(fmt::format("the InputLayer's shape {} is not imported: the dataset decides the input here", shape_text(cfg.at(key))));
      input_seen = true;
      continue;
    }
    if (!kSupported.count(type)) {
      problems.push_back(label);
      continue;
    }
    if (const std::string why = unsupported_setting(type, cfg); !why.empty()) {
      problems.push_back(fmt::format("{} with {}", label, why));
      continue;
    }
    if (!input_seen && cfg.contains("batch_input_shape") && cfg.at("batch_input_shape").is_array())
      note(fmt::format("the input shape {} is not imported: the dataset decides the input here",
                       shape_text(cfg.at("batch_input_shape"))));
    nlohmann::json layer = {{"type", type}};
    if (!name.empty()) layer["name"] = name;
    for (const char* key : {"units", "filters", "kernel_size", "strides", "padding", "pool_size", "use_bias", "rate",
                            "input_dim", "output_dim", "num_tokens", "output_mode"})
      if (cfg.contains(key)) layer[key] = cfg.at(key);
    if (cfg.contains("activation")) layer["activation"] = activation_of(cfg.at("activation"));
    // Keras writes out default strides (1 for convolutions, the pool size for pooling); the editor
    // shows only what differs from the defaults.
    if (layer.contains("strides")) {
      const auto& strides = layer.at("strides");
      const bool pooling = type.find("Pool") != std::string::npos;
      if (strides.is_null() || (!pooling && all_ones(strides)) || (pooling && layer.contains("pool_size") && strides == layer.at("pool_size")))
        layer.erase("strides");
    }
    for (const char* key : kTrainingOnly)
      if (cfg.contains(key) && !cfg.at(key).is_null() && !is_default_initializer(key, cfg.at(key)))
        note(fmt::format("'{}' is not imported (it only affects training in Keras)", key));
    if (cfg.value("mask_zero", false))
      note("mask_zero is not imported: padding ids (0) take part in pooling here as any other id");
    // Checked alone, so that every bad layer is named at once.
    LayerKind kind{};
    try {
      kind = model_from_json(nlohmann::json{{"layers", nlohmann::json::array({layer})}}).layers.at(0).kind;
    } catch (const ConfigError& e) {
      std::string why = e.what();
      const std::string prefix = "model layer 1";
      if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
      const auto colon = why.find(": ");
      problems.push_back(fmt::format("{}: {}", label, colon == std::string::npos ? why : why.substr(colon + 2)));
      continue;
    }
    // Keras' automatic names (conv1d, conv1d_1, ...) are the ones analyze() gives unnamed layers
    // too: left out, so the editor shows settings rather than names; the names stay the same.
    const std::string base = keras_base_name(kind);
    const int n = auto_named[base];
    if (name == (n == 0 ? base : fmt::format("{}_{}", base, n))) {
      layer.erase("name");
      ++auto_named[base];
    }
    const std::string short_label = name.empty() ? type : fmt::format("'{}' ({})", name, type);
    if (kind == LayerKind::kEmbedding || kind == LayerKind::kCategoryEncoding) sized_by_data.push_back(short_label);
    if (kind == LayerKind::kDense) last_dense = short_label;  // the output layer
    ours.push_back(std::move(layer));
  }
  if (!problems.empty()) {
    std::string supported;
    for (const char* t : {"Embedding", "Conv1D", "Conv2D", "MaxPooling1D", "MaxPooling2D", "GlobalMaxPooling1D",
                          "GlobalAveragePooling1D", "Flatten", "Dense", "Dropout", "Activation", "CategoryEncoding"})
      supported += (supported.empty() ? "" : ", ") + std::string(t);
    throw ConfigError(fmt::format("Keras model: {} of its layers cannot be opened here: {}. Supported: {}",
                                  problems.size(), fmt::join(problems, "; "), supported));
  }
  if (ours.empty()) throw ConfigError("Keras model: it has no layers");
  if (!last_dense.empty()) sized_by_data.push_back(last_dense);
  if (!sized_by_data.empty())
    note(fmt::format("the sizes of {} are the file's numbers; \"vocab\" (input_dim, num_tokens) and \"classes\" "
                     "(units) follow the dataset instead",
                     fmt::join(sized_by_data, " and ")));
  nlohmann::json spec = {{"layers", std::move(ours)}, {"initializer", "keras"}};
  if (config.is_object() && config.contains("name") && config.at("name").is_string()) spec["name"] = config.at("name");
  note("weights start as Keras initialises them by default (Glorot-uniform kernels, zero biases, "
       "uniform(-0.05, 0.05) embeddings); the file holds no trained weights");
  ModelSpec model = model_from_json(spec);
  // The window shows this one apart, with its fixes: it decides whether the model learns at all.
  if (const std::string softmax = softmax_notice(model); !softmax.empty()) note(softmax);
  if (notes) *notes = std::move(said);
  return model;
}
}  // namespace

ModelSpec model_from_keras_json(const nlohmann::json& j, std::vector<std::string>* notes) {
  try {
    return from_keras(j, notes);
  } catch (const nlohmann::json::exception& e) {  // a setting of the wrong type: "keepdims": "yes"
    throw ConfigError(fmt::format("Keras model: {}", e.what()));
  }
}

}  // namespace mirror
