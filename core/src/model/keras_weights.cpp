// A model's weights between LibTorch's names and layouts and Keras': where each parameter sits in
// model.weights.h5 (layers/<snake_case class>[_N]/vars/i) and how its axes turn, both ways.
// Tested by tests/core/model/test_keras_file.cpp and test_keras_weights.cpp; Keras itself checks
// both directions in tests/cli/test_export.sh and test_keras_weights.sh.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "mirror/model/keras_file.h"
#include "mirror/model/lowering.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/zip_read.h"

namespace mirror {

namespace {
// One parameter: LibTorch's name and shape, Keras' shape, and for each of Keras' axes the
// LibTorch axis it is.
struct Variable {
  std::string torch_name;
  std::vector<int64_t> torch_shape, keras_shape, torch_axis_of_keras_axis;
};

// One layer's group in model.weights.h5 and its variables in Keras' order (kernel, then bias).
struct LayerLayout {
  std::string path;  // "layers/dense_1"
  std::string name;  // the layer's name as Keras takes it
  std::vector<Variable> vars;
};

// The shape layer `i` takes: the model's input, or what the layer before it gives.
const std::vector<int64_t>& layer_input(const ModelAnalysis& a, size_t i) {
  return i == 0 ? a.input_shape : a.layers[i - 1].output_shape;
}

std::string keras_layer_name(std::string name) {  // Keras refuses '/' in a name (export_keras.cpp)
  for (char& c : name)
    if (c == '/') c = '_';
  return name;
}

std::vector<LayerLayout> layouts(const ModelAnalysis& analysis) {
  std::map<std::string, int> seen;  // Keras numbers a class's layers: dense, dense_1, dense_2, ...
  std::vector<LayerLayout> out;
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const LayerReport& r = analysis.layers[i];
    const LayerSpec& l = r.resolved;
    const std::string base = keras_base_name(l.kind);
    const int n = seen[base]++;
    LayerLayout layer{"layers/" + (n == 0 ? base : fmt::format("{}_{}", base, n)), keras_layer_name(r.name), {}};
    const std::vector<int64_t>& in = layer_input(analysis, i);
    const int64_t channels = in.empty() ? 0 : in.back();
    const std::string weight = r.name + ".weight";
    switch (l.kind) {
      case LayerKind::kEmbedding:
        layer.vars.push_back({weight, {l.input_dim, l.output_dim}, {l.input_dim, l.output_dim}, {0, 1}});
        break;
      case LayerKind::kConv1D:  // (out, in, k) -> (k, in, out)
        layer.vars.push_back({weight, {l.units, channels, l.kernel[0]}, {l.kernel[0], channels, l.units}, {2, 1, 0}});
        break;
      case LayerKind::kConv2D:  // (out, in, kh, kw) -> (kh, kw, in, out)
        layer.vars.push_back({weight, {l.units, channels, l.kernel[0], l.kernel[1]},
                              {l.kernel[0], l.kernel[1], channels, l.units}, {2, 3, 1, 0}});
        break;
      case LayerKind::kDense:  // (out, in) -> (in, out)
        layer.vars.push_back({weight, {l.units, channels}, {channels, l.units}, {1, 0}});
        break;
      default:
        break;
    }
    if ((l.kind == LayerKind::kConv1D || l.kind == LayerKind::kConv2D || l.kind == LayerKind::kDense) && l.use_bias)
      layer.vars.push_back({r.name + ".bias", {l.units}, {l.units}, {0}});
    out.push_back(std::move(layer));
  }
  return out;
}

// `from` (shape `from_shape`, C order) with its axes turned: the result's element at index k is
// `from`'s at the index whose axis from_axis_of_to_axis[j] is k[j].
std::vector<float> turned(const std::vector<float>& from, const std::vector<int64_t>& from_shape,
                          const std::vector<int64_t>& to_shape, const std::vector<int64_t>& from_axis_of_to_axis) {
  std::vector<int64_t> stride(from_shape.size(), 1);
  for (size_t d = from_shape.size(); d-- > 1;) stride[d - 1] = stride[d] * from_shape[d];
  std::vector<float> to(from.size());
  std::vector<int64_t> index(to_shape.size(), 0);
  for (size_t flat = 0; flat < to.size(); ++flat) {
    int64_t at = 0;
    for (size_t j = 0; j < index.size(); ++j) at += index[j] * stride[static_cast<size_t>(from_axis_of_to_axis[j])];
    to[flat] = from[static_cast<size_t>(at)];
    for (size_t j = index.size(); j-- > 0;) {  // the next index in C order
      if (++index[j] < to_shape[j]) break;
      index[j] = 0;
    }
  }
  return to;
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
        const std::vector<int64_t>& sizes = layer_input(analysis, index_of.at(op.name));
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

// The (out, in) weight `w` with its columns moved: to Keras' input order (`to_keras`), or back.
void reorder_columns(NamedWeights& w, const std::vector<int64_t>& columns, bool to_keras) {
  std::vector<float> r(w.values.size());
  const auto in = static_cast<size_t>(w.shape[1]);
  for (size_t o = 0; o < static_cast<size_t>(w.shape[0]); ++o)
    for (size_t c = 0; c < in; ++c) {
      const size_t keras = o * in + c, ours = o * in + static_cast<size_t>(columns[c]);
      (to_keras ? r[keras] : r[ours]) = w.values[to_keras ? ours : keras];
    }
  w.values = std::move(r);
}

bool columns_fit(const std::vector<int64_t>& shape, const std::vector<int64_t>& columns) {
  return shape.size() == 2 && shape[1] == static_cast<int64_t>(columns.size());
}
}  // namespace

std::vector<KerasLayerWeights> keras_layer_weights(const ModelAnalysis& analysis, const std::vector<NamedWeights>& weights) {
  std::map<std::string, const NamedWeights*> by_name;
  for (const auto& w : weights) by_name[w.name] = &w;
  // A Dense after a channels-first Flatten: its weight's columns put in Keras' order first.
  std::vector<NamedWeights> reordered;
  const auto orders = dense_input_orders(analysis);
  reordered.reserve(orders.size());
  for (const auto& [layer, columns] : orders) {
    const auto it = by_name.find(layer + ".weight");
    if (it == by_name.end() || !columns_fit(it->second->shape, columns)) continue;  // named below
    reordered.push_back(*it->second);
    reorder_columns(reordered.back(), columns, /*to_keras=*/true);
    by_name[layer + ".weight"] = &reordered.back();
  }
  std::vector<KerasLayerWeights> out;
  for (const LayerLayout& layer : layouts(analysis)) {
    KerasLayerWeights group{layer.path, layer.name, {}};
    for (const Variable& v : layer.vars) {
      const auto it = by_name.find(v.torch_name);
      if (it == by_name.end()) throw ConfigError(fmt::format("cannot export: no trained values for {}", v.torch_name));
      const NamedWeights& w = *it->second;
      if (w.shape != v.torch_shape)
        throw ConfigError(fmt::format("cannot export: {} has shape ({}), the model needs ({})", v.torch_name,
                                      fmt::join(w.shape, ", "), fmt::join(v.torch_shape, ", ")));
      group.vars.push_back({"", v.keras_shape, turned(w.values, w.shape, v.keras_shape, v.torch_axis_of_keras_axis)});
    }
    out.push_back(std::move(group));
  }
  return out;
}

std::vector<NamedWeights> weights_from_keras(const ModelAnalysis& analysis, const std::vector<KerasLayerWeights>& layers,
                                             const std::string& what) {
  std::map<std::string, const KerasLayerWeights*> by_path;
  for (const auto& l : layers) by_path[l.path] = &l;
  std::vector<NamedWeights> out;
  for (const LayerLayout& layer : layouts(analysis)) {
    if (layer.vars.empty()) continue;
    const auto it = by_path.find(layer.path);
    if (it == by_path.end())
      throw DataError(fmt::format("{}: holds no weights for layer '{}' (no group {}): the file is of another model",
                                  what, layer.name, layer.path));
    const KerasLayerWeights& group = *it->second;
    if (group.vars.size() != layer.vars.size())
      throw DataError(fmt::format("{}: {} holds {} variables, layer '{}' has {}", what, layer.path, group.vars.size(),
                                  layer.name, layer.vars.size()));
    for (size_t i = 0; i < layer.vars.size(); ++i) {
      const Variable& v = layer.vars[i];
      const NamedWeights& k = group.vars[i];
      if (k.shape != v.keras_shape)
        throw DataError(fmt::format("{}: {}/vars/{} is ({}), layer '{}' needs ({}): the file is of another model", what,
                                    layer.path, i, fmt::join(k.shape, ", "), layer.name, fmt::join(v.keras_shape, ", ")));
      std::vector<int64_t> keras_axis_of_torch_axis(v.torch_shape.size());
      for (size_t j = 0; j < v.torch_axis_of_keras_axis.size(); ++j)
        keras_axis_of_torch_axis[static_cast<size_t>(v.torch_axis_of_keras_axis[j])] = static_cast<int64_t>(j);
      out.push_back({v.torch_name, v.torch_shape, turned(k.values, k.shape, v.torch_shape, keras_axis_of_torch_axis)});
    }
  }
  const auto orders = dense_input_orders(analysis);
  for (NamedWeights& w : out) {
    const auto it = orders.find(w.name.substr(0, w.name.rfind('.')));
    if (it != orders.end() && w.name.size() > 7 && w.name.compare(w.name.size() - 7, 7, ".weight") == 0 &&
        columns_fit(w.shape, it->second))
      reorder_columns(w, it->second, /*to_keras=*/false);
  }
  return out;
}

namespace {
constexpr uint64_t kKerasArchiveLimit = uint64_t{2} << 30;     // as load_model_file reads it
constexpr uint64_t kKerasWeightsLimit = uint64_t{1} << 30;  // model.weights.h5, inflated
}  // namespace

std::vector<KerasLayerWeights> keras_file_weights(const std::string& path) {
  const std::string bytes = read_untrusted_file(path, kKerasArchiveLimit);
  const auto members = read_zip_members(bytes, path, {"model.weights.h5"},
                                        {"metadata.json", "config.json", "model.weights.h5", "assets/"}, 64,
                                        kKerasWeightsLimit);
  return read_keras_weights_h5(members.at("model.weights.h5"), path + ": model.weights.h5");
}

}  // namespace mirror
