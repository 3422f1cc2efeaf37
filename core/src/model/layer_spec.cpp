#include "mirror/model/layer_spec.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>

#include "mirror/model/keras_import.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/zip_read.h"

namespace mirror {

namespace {
struct KindNames {
  LayerKind kind;
  const char* type;
  const char* base;
};
constexpr KindNames kKinds[] = {
    {LayerKind::kEmbedding, "Embedding", "embedding"},
    {LayerKind::kConv1D, "Conv1D", "conv1d"},
    {LayerKind::kConv2D, "Conv2D", "conv2d"},
    {LayerKind::kMaxPool1D, "MaxPooling1D", "max_pooling1d"},
    {LayerKind::kMaxPool2D, "MaxPooling2D", "max_pooling2d"},
    {LayerKind::kGlobalMaxPool1D, "GlobalMaxPooling1D", "global_max_pooling1d"},
    {LayerKind::kGlobalAveragePool1D, "GlobalAveragePooling1D", "global_average_pooling1d"},
    {LayerKind::kFlatten, "Flatten", "flatten"},
    {LayerKind::kDense, "Dense", "dense"},
    {LayerKind::kDropout, "Dropout", "dropout"},
    {LayerKind::kActivation, "Activation", "activation"},
    {LayerKind::kCategoryEncoding, "CategoryEncoding", "category_encoding"},
};
// Keras accepts both spellings of the pooling layers.
const std::map<std::string, LayerKind> kAliases = {
    {"MaxPool1D", LayerKind::kMaxPool1D},
    {"MaxPool2D", LayerKind::kMaxPool2D},
    {"GlobalMaxPool1D", LayerKind::kGlobalMaxPool1D},
    {"GlobalAvgPool1D", LayerKind::kGlobalAveragePool1D},
    {"GlobalAveragePool1D", LayerKind::kGlobalAveragePool1D},
};
constexpr std::pair<Activation, const char*> kActivations[] = {
    {Activation::kLinear, "linear"}, {Activation::kRelu, "relu"},       {Activation::kSigmoid, "sigmoid"},
    {Activation::kTanh, "tanh"},     {Activation::kSoftmax, "softmax"}, {Activation::kGelu, "gelu"},
    {Activation::kElu, "elu"},
};

LayerKind parse_kind(const std::string& type, const std::string& where) {
  for (const auto& k : kKinds)
    if (type == k.type) return k.kind;
  if (auto it = kAliases.find(type); it != kAliases.end()) return it->second;
  std::string known;
  for (const auto& k : kKinds) known += (known.empty() ? "" : ", ") + std::string(k.type);
  throw ConfigError(fmt::format("{}: unknown layer type '{}' (known: {})", where, type, known));
}

Activation parse_activation(const nlohmann::json& v, const std::string& where) {
  if (v.is_null()) return Activation::kLinear;
  if (!v.is_string()) throw ConfigError(fmt::format("{}: 'activation' must be a string", where));
  const auto s = v.get<std::string>();
  for (const auto& [a, name] : kActivations)
    if (s == name) return a;
  throw ConfigError(fmt::format("{}: unknown activation '{}' (known: linear, relu, sigmoid, tanh, "
                                "softmax, gelu, elu)", where, s));
}

// A positive integer, or kFromDataset when the JSON holds the word `dataset_word`.
int64_t positive(const nlohmann::json& j, const char* key, const std::string& where,
                 const char* dataset_word = nullptr) {
  if (!j.contains(key)) throw ConfigError(fmt::format("{}: missing '{}'", where, key));
  const auto& v = j.at(key);
  if (dataset_word && v.is_string() && v.get<std::string>() == dataset_word) return kFromDataset;
  if (!v.is_number_integer() || v.get<int64_t>() < 1)
    throw ConfigError(fmt::format("{}: '{}' must be a positive integer{}, got {}", where, key,
                                  dataset_word ? fmt::format(" or \"{}\"", dataset_word) : "", v.dump()));
  return v.get<int64_t>();
}

// Keras takes an int or a list of ints for kernel, pool and stride sizes.
std::vector<int64_t> sizes(const nlohmann::json& j, const char* key, size_t rank,
                           const std::string& where, bool required) {
  if (!j.contains(key) || j.at(key).is_null()) {
    if (required) throw ConfigError(fmt::format("{}: missing '{}'", where, key));
    return {};
  }
  const auto& v = j.at(key);
  std::vector<int64_t> out;
  if (v.is_number_integer()) out.assign(rank, v.get<int64_t>());
  else if (v.is_array() && v.size() == rank && std::all_of(v.begin(), v.end(), [](auto& e) { return e.is_number_integer(); }))
    for (const auto& e : v) out.push_back(e.get<int64_t>());
  else
    throw ConfigError(fmt::format("{}: '{}' must be an integer or a list of {} integers, got {}", where,
                                  key, rank, v.dump()));
  for (int64_t s : out)
    if (s < 1) throw ConfigError(fmt::format("{}: '{}' must be positive, got {}", where, key, v.dump()));
  return out;
}

nlohmann::json size_json(const std::vector<int64_t>& s) {
  if (s.size() == 1) return s[0];
  return s;
}
}  // namespace

const char* keras_type(LayerKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.type;
  return "?";
}

const char* keras_base_name(LayerKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k.base;
  return "?";
}

const char* activation_name(Activation a) {
  for (const auto& [act, name] : kActivations)
    if (act == a) return name;
  return "?";
}

nlohmann::json to_json(const ModelSpec& spec) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : spec.layers) {
    nlohmann::json j;
    j["type"] = keras_type(l.kind);
    if (!l.name.empty()) j["name"] = l.name;
    switch (l.kind) {
      case LayerKind::kEmbedding:
        j["input_dim"] = l.input_dim == kFromDataset ? nlohmann::json("vocab") : nlohmann::json(l.input_dim);
        j["output_dim"] = l.output_dim;
        break;
      case LayerKind::kConv1D:
      case LayerKind::kConv2D:
        j["filters"] = l.units;
        j["kernel_size"] = size_json(l.kernel);
        if (!l.strides.empty()) j["strides"] = size_json(l.strides);
        j["padding"] = l.same_padding ? "same" : "valid";
        j["activation"] = activation_name(l.activation);
        if (!l.use_bias) j["use_bias"] = false;
        break;
      case LayerKind::kMaxPool1D:
      case LayerKind::kMaxPool2D:
        j["pool_size"] = size_json(l.pool);
        if (!l.strides.empty()) j["strides"] = size_json(l.strides);
        j["padding"] = l.same_padding ? "same" : "valid";
        break;
      case LayerKind::kDense:
        j["units"] = l.units == kFromDataset ? nlohmann::json("classes") : nlohmann::json(l.units);
        j["activation"] = activation_name(l.activation);
        if (!l.use_bias) j["use_bias"] = false;
        break;
      case LayerKind::kDropout: j["rate"] = l.rate; break;
      case LayerKind::kActivation: j["activation"] = activation_name(l.activation); break;
      case LayerKind::kCategoryEncoding:
        j["num_tokens"] = l.units == kFromDataset ? nlohmann::json("vocab") : nlohmann::json(l.units);
        j["output_mode"] = l.count_mode ? "count" : "multi_hot";
        break;
      default: break;
    }
    layers.push_back(std::move(j));
  }
  nlohmann::json j = {{"name", spec.name}, {"layers", std::move(layers)}};
  if (spec.initializer != "torch") j["initializer"] = spec.initializer;
  if (spec.train_on_probabilities) j["train_on_probabilities"] = true;
  return j;
}

namespace {
ModelSpec model_from_json_unchecked(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("layers") || !j.at("layers").is_array())
    throw ConfigError("model: expected an object with a \"layers\" list");
  ModelSpec spec;
  if (j.contains("name") && j.at("name").is_string()) spec.name = j.at("name").get<std::string>();
  if (j.contains("initializer")) {
    if (!j.at("initializer").is_string() ||
        (j.at("initializer").get<std::string>() != "torch" && j.at("initializer").get<std::string>() != "keras"))
      throw ConfigError("model: \"initializer\" must be \"torch\" or \"keras\"");
    spec.initializer = j.at("initializer").get<std::string>();
  }
  if (j.contains("train_on_probabilities")) {
    if (!j.at("train_on_probabilities").is_boolean())
      throw ConfigError("model: \"train_on_probabilities\" must be true or false");
    spec.train_on_probabilities = j.at("train_on_probabilities").get<bool>();
  }
  const auto& layers = j.at("layers");
  if (layers.empty()) throw ConfigError("model: the layer list is empty");
  for (size_t i = 0; i < layers.size(); ++i) {
    const auto& lj = layers[i];
    std::string where = fmt::format("model layer {}", i + 1);
    if (!lj.is_object() || !lj.contains("type") || !lj.at("type").is_string())
      throw ConfigError(fmt::format("{}: expected an object with a \"type\"", where));
    LayerSpec l;
    l.kind = parse_kind(lj.at("type").get<std::string>(), where);
    where += fmt::format(" ({})", keras_type(l.kind));
    if (lj.contains("name")) l.name = lj.at("name").get<std::string>();
    if (lj.contains("padding")) {
      const auto p = lj.at("padding").get<std::string>();
      if (p != "same" && p != "valid")
        throw ConfigError(fmt::format("{}: padding must be \"valid\" or \"same\", got \"{}\"", where, p));
      l.same_padding = p == "same";
    }
    if (lj.contains("use_bias")) l.use_bias = lj.at("use_bias").get<bool>();
    switch (l.kind) {
      case LayerKind::kEmbedding:
        l.input_dim = positive(lj, "input_dim", where, "vocab");
        l.output_dim = positive(lj, "output_dim", where);
        break;
      case LayerKind::kConv1D:
      case LayerKind::kConv2D: {
        const size_t rank = l.kind == LayerKind::kConv1D ? 1 : 2;
        l.units = positive(lj, "filters", where);
        l.kernel = sizes(lj, "kernel_size", rank, where, true);
        l.strides = sizes(lj, "strides", rank, where, false);
        l.activation = parse_activation(lj.value("activation", nlohmann::json()), where);
        break;
      }
      case LayerKind::kMaxPool1D:
      case LayerKind::kMaxPool2D: {
        const size_t rank = l.kind == LayerKind::kMaxPool1D ? 1 : 2;
        l.pool = lj.contains("pool_size") ? sizes(lj, "pool_size", rank, where, true)
                                          : std::vector<int64_t>(rank, 2);
        l.strides = sizes(lj, "strides", rank, where, false);
        break;
      }
      case LayerKind::kDense:
        l.units = positive(lj, "units", where, "classes");
        l.activation = parse_activation(lj.value("activation", nlohmann::json()), where);
        break;
      case LayerKind::kDropout:
        if (!lj.contains("rate") || !lj.at("rate").is_number())
          throw ConfigError(fmt::format("{}: missing numeric 'rate'", where));
        l.rate = lj.at("rate").get<double>();
        if (!(l.rate >= 0.0 && l.rate < 1.0))
          throw ConfigError(fmt::format("{}: rate must be in [0, 1), got {}", where, l.rate));
        break;
      case LayerKind::kCategoryEncoding: {
        l.units = positive(lj, "num_tokens", where, "vocab");
        const std::string mode = lj.value("output_mode", std::string("multi_hot"));
        if (mode != "multi_hot" && mode != "count")
          throw ConfigError(fmt::format("{}: output_mode must be \"multi_hot\" or \"count\", got \"{}\"", where, mode));
        l.count_mode = mode == "count";
        break;
      }
      case LayerKind::kActivation:
        if (!lj.contains("activation")) throw ConfigError(fmt::format("{}: missing 'activation'", where));
        l.activation = parse_activation(lj.at("activation"), where);
        break;
      default: break;
    }
    spec.layers.push_back(std::move(l));
  }
  return spec;
}
}  // namespace

ModelSpec model_from_json(const nlohmann::json& j) {
  if (is_keras_model_json(j)) return model_from_keras_json(j);
  try {
    return model_from_json_unchecked(j);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type: {"name": 3}
    throw ConfigError(fmt::format("model: {}", e.what()));
  }
}

namespace {
// A .keras file holds the weights beside the config; larger ones are refused unread.
constexpr uint64_t kMaxKerasFileBytes = uint64_t{2} << 30;

nlohmann::json keras_file_config(const std::string& path) {
  std::map<std::string, std::string> members;
  try {
    const std::string bytes = read_untrusted_file(path, kMaxKerasFileBytes);
    // What Keras 3 writes into a .keras file, and nothing else (assets/ for layers that keep files).
    members = read_zip_members(bytes, path, {"config.json"},
                               {"metadata.json", "config.json", "model.weights.h5", "assets/"}, 64,
                               kModelFileJson.max_bytes);
  } catch (const DataError& e) {
    throw ConfigError(fmt::format("model file {}", e.what()));
  }
  return parse_json_text(members.at("config.json"), path + ": config.json", kModelFileJson);
}
}  // namespace

// A Keras 3 .keras file (a zip) is read for its config.json; "PK\3\4" opens every zip. A file
// that cannot be opened is left to the JSON reader, which says why.
bool is_keras_archive(const std::string& path) {
  UntrustedFile f(path, kMaxKerasFileBytes);
  return f.ok() && f.read(0, 4) == std::string("PK\x03\x04", 4);
}

ModelSpec load_model_file(const std::string& path, std::vector<std::string>* keras_notes) {
  const bool keras_file = is_keras_archive(path);
  const nlohmann::json j = keras_file ? keras_file_config(path) : parse_json_file(path, kModelFileJson);
  if (keras_file && !is_keras_model_json(j))
    throw ConfigError(fmt::format("model file {}: its config.json is not a Keras model's", path));
  try {
    ModelSpec spec = keras_notes && is_keras_model_json(j) ? model_from_keras_json(j, keras_notes) : model_from_json(j);
    return spec;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("model file {}: {}", path, e.what()));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("model file {}: {}", path, e.what()));
  }
}

}  // namespace mirror
