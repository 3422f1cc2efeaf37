#include "mirror/model/shape.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "mirror/data/dataset.h"
#include "mirror/util/python_literal.h"

namespace mirror {

InputSpec input_spec(const Dataset& dataset) {
  const auto& info = dataset.info();
  return InputSpec{info.input_shape, info.kind == InputKind::kTokens, info.vocab_size, info.num_classes};
}

namespace {
// Keras' output length of a window op along one axis (in >= k unless `same`; k, s >= 1). Written
// so that no sum can overflow, whatever sizes a model file gives (a stride of 2^63 - 1).
int64_t window_out(int64_t in, int64_t k, int64_t s, bool same) {
  return same ? in / s + (in % s != 0 ? 1 : 0) : (in - k) / s + 1;
}

// a * b * ... + add, or -1 when it would not fit an int64 (a layer of 10^12 units on a wide input).
int64_t checked(std::initializer_list<int64_t> factors, int64_t add = 0) {
  int64_t out = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(out, f, &out)) return -1;
  if (__builtin_add_overflow(out, add, &out)) return -1;
  return out;
}

// Applies one layer to `in`; returns its output shape or sets `error`.
std::vector<int64_t> infer_layer(LayerSpec& l, const std::vector<int64_t>& in, const InputSpec& input,
                                 bool first, int64_t& params, std::string& error) {
  const auto rank = in.size();
  auto fail = [&](std::string msg) {
    error = std::move(msg);
    return std::vector<int64_t>{};
  };
  const std::string too_many = "its parameter count does not fit a 64-bit integer; use fewer units or filters";
  switch (l.kind) {
    case LayerKind::kEmbedding: {
      if (!first || !input.tokens)
        return fail("Embedding must be the first layer, on a dataset of token ids");
      if (l.input_dim == kFromDataset) l.input_dim = input.vocab_size;
      if (input.vocab_size > l.input_dim)
        return fail(fmt::format("input_dim {} is smaller than the dataset's vocabulary ({} ids); token "
                                "ids would fall outside the table", l.input_dim, input.vocab_size));
      params = checked({l.input_dim, l.output_dim});
      if (params < 0) return fail(too_many);
      auto out = in;
      out.push_back(l.output_dim);
      return out;
    }
    case LayerKind::kConv1D:
    case LayerKind::kConv2D:
    case LayerKind::kMaxPool1D:
    case LayerKind::kMaxPool2D: {
      const bool conv = l.kind == LayerKind::kConv1D || l.kind == LayerKind::kConv2D;
      const size_t spatial = (l.kind == LayerKind::kConv1D || l.kind == LayerKind::kMaxPool1D) ? 1 : 2;
      if (rank != spatial + 1)
        return fail(fmt::format("expects input of shape {} but gets {}",
                                spatial == 1 ? "(None, steps, channels)" : "(None, rows, cols, channels)",
                                format_shape(in)));
      const auto& window = conv ? l.kernel : l.pool;
      std::vector<int64_t> strides = l.strides;
      if (strides.empty()) strides = conv ? std::vector<int64_t>(spatial, 1) : window;
      if (l.same_padding) {
        const bool unit_stride = std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; });
        if (conv && !unit_stride) return fail("padding=\"same\" is supported with strides 1 only");
        if (!conv && strides != window) return fail("padding=\"same\" pooling needs strides equal to pool_size");
      }
      std::vector<int64_t> out;
      for (size_t d = 0; d < spatial; ++d) {
        // Keras pads a "same" pool wider than its input; LibTorch's ceil-mode pooling, which
        // runs it here, cannot.
        if ((!l.same_padding || !conv) && in[d] < window[d])
          return fail(fmt::format("{} {} is larger than the input's size {} along axis {}",
                                  conv ? "kernel" : "pool", window[d], in[d], d + 1));
        out.push_back(window_out(in[d], window[d], strides[d], l.same_padding));
      }
      const int64_t channels = in.back();
      if (conv) {
        const int64_t area = spatial == 1 ? window[0] : checked({window[0], window[1]});
        params = area < 0 ? -1 : checked({area, channels, l.units}, l.use_bias ? l.units : 0);
        if (params < 0) return fail(too_many);
        out.push_back(l.units);
      } else {
        out.push_back(channels);
      }
      return out;
    }
    case LayerKind::kGlobalMaxPool1D:
    case LayerKind::kGlobalAveragePool1D:
      if (rank != 2) return fail(fmt::format("expects (None, steps, channels) but gets {}", format_shape(in)));
      return {in[1]};
    case LayerKind::kFlatten: {
      if (rank < 1) return fail("nothing to flatten");
      int64_t size = 1;
      for (int64_t d : in)
        if (__builtin_mul_overflow(size, d, &size)) return fail("the flattened size does not fit a 64-bit integer");
      return {size};
    }
    case LayerKind::kDense: {
      if (l.units == kFromDataset) l.units = input.num_classes;
      if (rank < 1) return fail("expects at least one feature axis");
      if (first && input.tokens)
        return fail("a Dense first layer on token ids treats ids as numbers; start with an Embedding");
      params = checked({in.back(), l.units}, l.use_bias ? l.units : 0);
      if (params < 0) return fail(too_many);
      auto out = in;
      out.back() = l.units;
      return out;
    }
    case LayerKind::kDropout:
    case LayerKind::kActivation:
      return in;
    case LayerKind::kCategoryEncoding: {
      if (!first || !input.tokens || rank != 1)
        return fail("CategoryEncoding must be the first layer, on a dataset of token id sequences");
      if (l.units == kFromDataset) l.units = input.vocab_size;
      if (input.vocab_size > l.units)
        return fail(fmt::format("num_tokens {} is smaller than the dataset's vocabulary ({} ids); limit the "
                                "vocabulary (--num-words {}) or raise num_tokens", l.units, input.vocab_size, l.units));
      return {l.units};
    }
  }
  return fail("unknown layer kind");
}
// Why LibTorch cannot register a layer's module under `name` (it is the key of the layer's
// parameters, "<name>.weight"), or "" when it can.
std::string layer_name_problem(const std::string& name) {
  if (name.empty()) return "the layer has no name";
  if (name.find('.') != std::string::npos)
    return fmt::format("the name {} holds a '.', which LibTorch keeps for parameter paths (\"dense.weight\"); "
                       "rename the layer", python_string_literal(name));
  if (std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return fmt::format("the name {} is all digits, as LibTorch numbers the model's unnamed steps; rename the layer",
                       python_string_literal(name));
  return "";
}
}  // namespace

bool ModelAnalysis::ok() const {
  if (!error.empty()) return false;
  return std::all_of(layers.begin(), layers.end(), [](const LayerReport& r) { return r.error.empty(); });
}

std::string ModelAnalysis::describe_errors() const {
  std::string out;
  for (size_t i = 0; i < layers.size(); ++i)
    if (!layers[i].error.empty())
      out += fmt::format("{}layer {} {} ({}): {}", out.empty() ? "" : "; ", i + 1, layers[i].name,
                         layers[i].type, layers[i].error);
  if (!error.empty()) out += (out.empty() ? "" : "; ") + error;
  return out;
}

ModelAnalysis analyze(const ModelSpec& spec, const InputSpec& input) {
  ModelAnalysis a;
  a.input_shape = input.shape;
  a.initializer = spec.initializer;
  a.train_on_probabilities = spec.train_on_probabilities;
  std::map<std::string, int> seen;
  std::set<std::string> given;  // the names the spec gives; automatic names keep clear of them
  for (const auto& l : spec.layers) given.insert(l.name);
  std::map<std::string, size_t> named;  // layer index by name
  std::vector<int64_t> shape = input.shape;
  bool broken = false;
  if (spec.layers.empty()) a.error = "the model has no layers";
  for (size_t i = 0; i < spec.layers.size(); ++i) {
    LayerReport r;
    r.resolved = spec.layers[i];
    r.type = keras_type(r.resolved.kind);
    if (!r.resolved.name.empty()) {
      r.name = r.resolved.name;
    } else {
      const std::string base = keras_base_name(r.resolved.kind);
      do {
        const int n = seen[base]++;
        r.name = n == 0 ? base : fmt::format("{}_{}", base, n);
      } while (given.count(r.name));
    }
    std::string name_error = layer_name_problem(r.name);
    if (const auto [it, fresh] = named.emplace(r.name, i); !fresh)
      name_error = fmt::format("layer {} ({}) has the same name, {}; layer names must be unique, as in Keras: "
                               "rename one of them", it->second + 1, a.layers[it->second].type,
                               python_string_literal(r.name));
    if (broken) {
      r.error = "";  // shape unknown: an earlier layer failed
    } else {
      shape = infer_layer(r.resolved, shape, input, i == 0, r.params, r.error);
      if (!r.error.empty()) broken = true;
      else r.output_shape = shape;
    }
    if (r.params > 0 && __builtin_add_overflow(a.total_params, r.params, &a.total_params)) {
      r.error = "the model's parameter count no longer fits a 64-bit integer";
      broken = true;
    }
    if (!name_error.empty()) r.error = r.error.empty() ? name_error : name_error + "; " + r.error;
    a.layers.push_back(std::move(r));
  }
  a.trainable_params = a.total_params;
  if (!broken && a.error.empty() && !(shape.size() == 1 && shape[0] == input.num_classes))
    a.error = fmt::format("the model outputs {} but the dataset has {} classes: end with "
                          "Dense(units=\"classes\") after a Flatten or global pooling layer",
                          format_shape(shape), input.num_classes);
  return a;
}

}  // namespace mirror
