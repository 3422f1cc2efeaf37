// A model as Keras 3 writes it: config.json and the weights' layout (keras_h5.cpp writes the HDF5).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <map>

#include "mirror/model/keras_file.h"
#include "mirror/model/lowering.h"
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

// Keras' weights come in the layer's order: kernel (or embeddings), then bias.
void take(KerasLayerWeights& out, const std::map<std::string, const NamedWeights*>& by_name, const std::string& name,
          const std::vector<int64_t>& torch_shape, const std::vector<int64_t>& keras_shape,
          const std::vector<int64_t>& torch_axis_of_keras_axis) {
  const auto it = by_name.find(name);
  if (it == by_name.end()) throw ConfigError(fmt::format("cannot export: no trained values for {}", name));
  const NamedWeights& w = *it->second;
  if (w.shape != torch_shape)
    throw ConfigError(fmt::format("cannot export: {} has shape ({}), the model needs ({})", name, fmt::join(w.shape, ", "),
                                  fmt::join(torch_shape, ", ")));
  // Keras' element at index k is LibTorch's at the index whose axis torch_axis_of_keras_axis[j] is k[j].
  std::vector<int64_t> torch_stride(torch_shape.size(), 1);
  for (size_t d = torch_shape.size(); d-- > 1;) torch_stride[d - 1] = torch_stride[d] * torch_shape[d];
  NamedWeights v{"", keras_shape, std::vector<float>(w.values.size())};
  std::vector<int64_t> index(keras_shape.size(), 0);
  for (size_t flat = 0; flat < v.values.size(); ++flat) {
    int64_t from = 0;
    for (size_t j = 0; j < index.size(); ++j) from += index[j] * torch_stride[static_cast<size_t>(torch_axis_of_keras_axis[j])];
    v.values[flat] = w.values[static_cast<size_t>(from)];
    for (size_t j = index.size(); j-- > 0;) {  // the next index in C order
      if (++index[j] < keras_shape[j]) break;
      index[j] = 0;
    }
  }
  out.vars.push_back(std::move(v));
}
// Keras flattens channels last; the engine holds a convolution's output channels first and
// flattens it so (lowering.h). For each Dense reading such a flattened tensor: at each of Keras'
// input positions, the engine's. Dense layers that read their input as Keras does are left out.
std::map<std::string, std::vector<int64_t>> dense_input_orders(const ModelAnalysis& analysis) {
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < analysis.layers.size(); ++i) index_of[analysis.layers[i].name] = i;
  std::map<std::string, std::vector<int64_t>> out;
  std::vector<int64_t> order(analysis.input_shape.size());  // the engine's axis i is Keras' axis order[i]
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::vector<int64_t> flat;  // after a Flatten of reordered axes: the engine's index of each of Keras'
  for (const Op& op : lower(analysis)) {
    switch (op.kind) {
      case OpKind::kPermute: {
        std::vector<int64_t> next;
        for (size_t i = 1; i < op.perm.size(); ++i) next.push_back(order[static_cast<size_t>(op.perm[i] - 1)]);
        order = std::move(next);
        break;
      }
      case OpKind::kEmbedding:
        order = {0, 1};
        break;
      case OpKind::kReduceMax:
      case OpKind::kReduceMean: {
        const int64_t gone = order[static_cast<size_t>(op.dim - 1)];
        order.erase(order.begin() + (op.dim - 1));
        for (auto& a : order)
          if (a > gone) --a;
        break;
      }
      case OpKind::kFlatten: {
        const std::vector<int64_t>& sizes = input_of(analysis, index_of.at(op.name));
        flat.clear();
        bool reordered = false;
        for (size_t i = 0; i < order.size(); ++i) reordered = reordered || order[i] != static_cast<int64_t>(i);
        if (reordered) {
          std::vector<int64_t> stride(order.size(), 1);  // the engine's strides, over its axes
          for (size_t i = order.size(); i-- > 1;) stride[i - 1] = stride[i] * sizes[static_cast<size_t>(order[i])];
          int64_t n = 1;
          for (int64_t d : sizes) n *= d;
          std::vector<int64_t> k(sizes.size(), 0);  // Keras' index, in C order
          for (int64_t f = 0; f < n; ++f) {
            int64_t ours = 0;
            for (size_t i = 0; i < order.size(); ++i) ours += k[static_cast<size_t>(order[i])] * stride[i];
            flat.push_back(ours);
            for (size_t j = k.size(); j-- > 0;) {
              if (++k[j] < sizes[j]) break;
              k[j] = 0;
            }
          }
        }
        order = {0};
        break;
      }
      case OpKind::kLinear:
        if (!flat.empty() && op.in_rank == 1) out[op.name] = flat;
        flat.clear();
        break;
      case OpKind::kCategoryEncoding:
        order = {0};
        flat.clear();
        break;
      default:  // convolutions, pools, dropout and activations keep what each axis means
        break;
    }
  }
  return out;
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

std::vector<KerasLayerWeights> keras_layer_weights(const ModelAnalysis& analysis, const std::vector<NamedWeights>& weights) {
  std::map<std::string, const NamedWeights*> by_name;
  for (const auto& w : weights) by_name[w.name] = &w;
  // A Dense after a channels-first Flatten: its weight's columns put in Keras' order first.
  std::vector<NamedWeights> reordered;
  const auto orders = dense_input_orders(analysis);
  reordered.reserve(orders.size());
  for (const auto& [layer, columns] : orders) {
    const auto it = by_name.find(layer + ".weight");
    if (it == by_name.end() || it->second->shape.size() != 2 ||
        it->second->shape[1] != static_cast<int64_t>(columns.size()))
      continue;  // take() names what is missing or misshapen
    const NamedWeights& w = *it->second;
    NamedWeights r{w.name, w.shape, std::vector<float>(w.values.size())};
    const auto in = static_cast<size_t>(w.shape[1]);
    for (size_t o = 0; o < static_cast<size_t>(w.shape[0]); ++o)
      for (size_t c = 0; c < in; ++c) r.values[o * in + c] = w.values[o * in + static_cast<size_t>(columns[c])];
    reordered.push_back(std::move(r));
    by_name[layer + ".weight"] = &reordered.back();
  }
  std::map<std::string, int> seen;  // Keras numbers a class's layers: dense, dense_1, dense_2, ...
  std::vector<KerasLayerWeights> out;
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const LayerReport& r = analysis.layers[i];
    const LayerSpec& l = r.resolved;
    const std::string base = keras_base_name(l.kind);
    const int n = seen[base]++;
    KerasLayerWeights group{"layers/" + (n == 0 ? base : fmt::format("{}_{}", base, n)), keras_name(r.name), {}};
    const std::vector<int64_t>& in = input_of(analysis, i);
    const int64_t channels = in.empty() ? 0 : in.back();
    const std::string weight = r.name + ".weight", bias = r.name + ".bias";
    switch (l.kind) {
      case LayerKind::kEmbedding:
        take(group, by_name, weight, {l.input_dim, l.output_dim}, {l.input_dim, l.output_dim}, {0, 1});
        break;
      case LayerKind::kConv1D:  // (out, in, k) -> (k, in, out)
        take(group, by_name, weight, {l.units, channels, l.kernel[0]}, {l.kernel[0], channels, l.units}, {2, 1, 0});
        break;
      case LayerKind::kConv2D:  // (out, in, kh, kw) -> (kh, kw, in, out)
        take(group, by_name, weight, {l.units, channels, l.kernel[0], l.kernel[1]},
             {l.kernel[0], l.kernel[1], channels, l.units}, {2, 3, 1, 0});
        break;
      case LayerKind::kDense:  // (out, in) -> (in, out)
        take(group, by_name, weight, {l.units, channels}, {channels, l.units}, {1, 0});
        break;
      default:
        break;
    }
    if ((l.kind == LayerKind::kConv1D || l.kind == LayerKind::kConv2D || l.kind == LayerKind::kDense) && l.use_bias)
      take(group, by_name, bias, {l.units}, {l.units}, {0});
    out.push_back(std::move(group));
  }
  return out;
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
