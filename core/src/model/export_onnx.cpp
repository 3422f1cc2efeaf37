// The ONNX form of a lowered model, written as protobuf wire format. Field numbers follow
// onnx/onnx.proto: ModelProto {ir_version=1, producer_name=2, producer_version=3, graph=7,
// opset_import=8, metadata_props=14}, GraphProto {node=1, name=2, initializer=5, input=11, output=12},
// NodeProto {input=1, output=2, name=3, op_type=4, attribute=5}, AttributeProto {name=1, f=2, i=3,
// ints=8, type=20}, TensorProto {dims=1, data_type=2, name=8, raw_data=9}, ValueInfoProto
// {name=1, type=2}, TypeProto {tensor_type=1 {elem_type=1, shape=2 {dim=1 {dim_value=1,
// dim_param=2}}}}, OperatorSetIdProto {domain=1, version=2}.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>

#include "mirror/model/export.h"
#include "mirror/model/lowering.h"
#include "mirror/util/error.h"
#include "mirror/util/python_literal.h"
#include "util/protobuf_wire.h"

namespace mirror {

namespace {
using wire::put_bytes_field;
using wire::put_int_field;

constexpr int kFloat = 1;  // TensorProto.DataType
constexpr int kInt64 = 7;
constexpr int kAttrFloat = 1;  // AttributeProto.AttributeType
constexpr int kAttrInt = 2;
constexpr int kAttrInts = 7;

std::string attr_int(const std::string& name, int64_t v) {
  std::string a;
  put_bytes_field(a, 1, name);
  put_int_field(a, 3, v);
  put_int_field(a, 20, kAttrInt);
  return a;
}
std::string attr_ints(const std::string& name, const std::vector<int64_t>& v) {
  std::string a;
  put_bytes_field(a, 1, name);
  for (int64_t x : v) put_int_field(a, 8, x);
  put_int_field(a, 20, kAttrInts);
  return a;
}
std::string attr_float(const std::string& name, float v) {
  std::string a;
  put_bytes_field(a, 1, name);
  wire::put_float_field(a, 2, v);
  put_int_field(a, 20, kAttrFloat);
  return a;
}

std::string tensor(const std::string& name, int data_type, const std::vector<int64_t>& dims, const void* data, size_t bytes) {
  std::string t;
  for (int64_t d : dims) put_int_field(t, 1, d);
  put_int_field(t, 2, data_type);
  put_bytes_field(t, 8, name);
  put_bytes_field(t, 9, data, bytes);
  return t;
}

// A graph input or output: a tensor of `elem_type` whose first axis is the batch.
std::string value_info(const std::string& name, int elem_type, const std::vector<int64_t>& shape) {
  std::string shape_proto;
  std::string batch;
  put_bytes_field(batch, 2, "batch");
  put_bytes_field(shape_proto, 1, batch);
  for (int64_t d : shape) {
    std::string dim;
    put_int_field(dim, 1, d);
    put_bytes_field(shape_proto, 1, dim);
  }
  std::string tensor_type;
  put_int_field(tensor_type, 1, elem_type);
  put_bytes_field(tensor_type, 2, shape_proto);
  std::string type;
  put_bytes_field(type, 1, tensor_type);
  std::string v;
  put_bytes_field(v, 1, name);
  put_bytes_field(v, 2, type);
  return v;
}

class GraphBuilder {
 public:
  GraphBuilder(const std::vector<NamedWeights>& weights) {
    for (const auto& w : weights) weights_[w.name] = &w;
  }

  // Adds a node; returns the name of its (one) output.
  std::string node(const std::string& op_type, const std::vector<std::string>& inputs,
                   const std::vector<std::string>& attributes = {}, const std::string& hint = "",
                   const std::string& output = "") {
    const std::string out = output.empty() ? fmt::format("{}_{}", hint.empty() ? op_type : hint, nodes_) : output;
    std::string n;
    for (const auto& in : inputs) put_bytes_field(n, 1, in);
    put_bytes_field(n, 2, out);
    put_bytes_field(n, 3, fmt::format("{}/{}", hint.empty() ? op_type : hint, nodes_));
    put_bytes_field(n, 4, op_type);
    for (const auto& a : attributes) put_bytes_field(n, 5, a);
    put_bytes_field(graph_, 1, n);
    ++nodes_;
    return out;
  }

  // The trained parameter `name` (LibTorch's name), as an initializer of the expected shape named
  // `exported`.
  std::string parameter(const std::string& name, const std::string& exported, const std::vector<int64_t>& shape) {
    const auto it = weights_.find(name);
    if (it == weights_.end())
      throw ConfigError(fmt::format("cannot export: no trained values for {}", python_string_literal(name)));
    const NamedWeights& w = *it->second;
    if (w.shape != shape)
      throw ConfigError(fmt::format("cannot export: {} holds {} values, the model needs shape ({})",
                                    python_string_literal(name), w.values.size(), fmt::join(shape, ", ")));
    initializers_ += wrap(tensor(exported, kFloat, shape, w.values.data(), w.values.size() * sizeof(float)));
    return exported;
  }
  // A constant initializer named `name`, or "<name>_N" where a constant already has that name (an
  // Activation layer whose identifier is "activation0", beside the unnamed activation0 of a Dense).
  std::string constant(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    const std::string unique = fresh_constant_name(name);
    initializers_ += wrap(tensor(unique, kFloat, dims, v.data(), v.size() * sizeof(float)));
    return unique;
  }
  std::string constant(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
    const std::string unique = fresh_constant_name(name);
    initializers_ += wrap(tensor(unique, kInt64, dims, v.data(), v.size() * sizeof(int64_t)));
    return unique;
  }

  std::string finish(const std::string& input, int input_type, const std::vector<int64_t>& input_shape,
                     const std::string& output, int64_t classes) {
    std::string g = graph_;
    put_bytes_field(g, 2, "mirror_workbench");
    g += initializers_;
    put_bytes_field(g, 11, value_info(input, input_type, input_shape));
    put_bytes_field(g, 12, value_info(output, kFloat, {classes}));
    return g;
  }

 private:
  static std::string wrap(const std::string& t) {
    std::string field;
    put_bytes_field(field, 5, t);
    return field;
  }
  std::string fresh_constant_name(const std::string& name) {
    std::string out = name;
    for (int n = 1; !constant_names_.insert(out).second; ++n) out = fmt::format("{}_{}", name, n);
    return out;
  }
  std::map<std::string, const NamedWeights*> weights_;
  std::set<std::string> constant_names_;
  std::string graph_;         // the nodes, in order
  std::string initializers_;  // graph field 5, each already framed
  int nodes_ = 0;
};

std::string activation(GraphBuilder& g, Activation a, const std::string& x, const std::string& hint) {
  switch (a) {
    case Activation::kLinear: return x;
    case Activation::kRelu: return g.node("Relu", {x}, {}, hint);
    case Activation::kSigmoid: return g.node("Sigmoid", {x}, {}, hint);
    case Activation::kTanh: return g.node("Tanh", {x}, {}, hint);
    case Activation::kSoftmax: return g.node("Softmax", {x}, {attr_int("axis", -1)}, hint);
    case Activation::kElu: return g.node("Elu", {x}, {attr_float("alpha", 1.0f)}, hint);
    case Activation::kGelu: {
      // The exact GELU, as LibTorch's default: x * (1 + erf(x / sqrt(2))) / 2. (Gelu itself is opset 20.)
      const std::string prefix = hint.empty() ? "gelu" : hint;
      const auto root2 = g.constant(prefix + ".sqrt2", {}, std::vector<float>{static_cast<float>(std::sqrt(2.0))});
      const auto one = g.constant(prefix + ".one", {}, std::vector<float>{1.0f});
      const auto half = g.constant(prefix + ".half", {}, std::vector<float>{0.5f});
      const auto erf = g.node("Erf", {g.node("Div", {x, root2})});
      return g.node("Mul", {g.node("Mul", {x, g.node("Add", {erf, one})}), half}, {}, hint);
    }
  }
  throw ConfigError(fmt::format("cannot export: activation {} has no ONNX form here", activation_name(a)));
}

// ModelProto.metadata_props entry (StringStringEntryProto {key=1, value=2}) that keeps the layer
// names as data: a JSON object {identifier: name}, in layer order.
std::string layer_names_entry(const ModelAnalysis& analysis, const std::map<std::string, std::string>& ids) {
  nlohmann::ordered_json names = nlohmann::ordered_json::object();
  for (const auto& r : analysis.layers) names[ids.at(r.name)] = r.name;
  std::string entry;
  put_bytes_field(entry, 1, "mirror.layer_names");
  put_bytes_field(entry, 2, names.dump(-1, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace));
  return entry;
}
}  // namespace

std::string onnx_model(const ModelAnalysis& analysis, const InputSpec& input, const std::vector<NamedWeights>& weights,
                       const std::string& producer_version) {
  const std::vector<Op> ops = lower(analysis);
  const auto ids = python_layer_names(analysis);
  GraphBuilder g(weights);
  std::string x = "input";
  int activations = 0;
  for (const Op& op : ops) {
    const auto& l = op.layer;
    // Graph names use the layer's checked identifier `n`; its name only finds its trained values.
    const std::string n = op.name.empty() ? "" : ids.at(op.name);
    const auto param = [&](const char* which, const std::vector<int64_t>& shape) {
      return g.parameter(op.name + "." + which, n + "." + which, shape);
    };
    switch (op.kind) {
      case OpKind::kPermute:
        x = g.node("Transpose", {x}, {attr_ints("perm", op.perm)});
        break;
      case OpKind::kEmbedding:
        x = g.node("Gather", {param("weight", {l.input_dim, l.output_dim}), x}, {attr_int("axis", 0)}, n);
        break;
      case OpKind::kConv: {
        std::vector<int64_t> w_shape = {l.units, op.in_channels};
        w_shape.insert(w_shape.end(), l.kernel.begin(), l.kernel.end());
        std::vector<std::string> inputs = {x, param("weight", w_shape)};
        if (l.use_bias) inputs.push_back(param("bias", {l.units}));
        std::vector<int64_t> pads = op.pad_begin;
        pads.insert(pads.end(), op.pad_end.begin(), op.pad_end.end());
        if (pads.empty()) pads.assign(2 * static_cast<size_t>(op.spatial), 0);
        x = g.node("Conv", inputs,
                   {attr_ints("kernel_shape", l.kernel), attr_ints("strides", op.strides), attr_ints("pads", pads),
                    attr_ints("dilations", std::vector<int64_t>(static_cast<size_t>(op.spatial), 1)), attr_int("group", 1)},
                   n);
        break;
      }
      case OpKind::kMaxPool: {
        // Keras' "same": its padding before the first window, and ceil mode for the rest after.
        std::vector<int64_t> pads = op.pad_begin;
        if (pads.empty()) pads.assign(static_cast<size_t>(op.spatial), 0);
        pads.resize(2 * static_cast<size_t>(op.spatial), 0);
        x = g.node("MaxPool", {x},
                   {attr_ints("kernel_shape", l.pool), attr_ints("strides", op.strides), attr_ints("pads", pads),
                    attr_int("ceil_mode", l.same_padding ? 1 : 0)},
                   n);
        break;
      }
      case OpKind::kReduceMax:
      case OpKind::kReduceMean:
        x = g.node(op.kind == OpKind::kReduceMax ? "ReduceMax" : "ReduceMean", {x},
                   {attr_ints("axes", {op.dim}), attr_int("keepdims", 0)}, n);
        break;
      case OpKind::kFlatten:
        x = g.node("Flatten", {x}, {attr_int("axis", 1)}, n);
        break;
      case OpKind::kLinear: {
        const auto w = param("weight", {l.units, op.in_channels});
        const std::string b = l.use_bias ? param("bias", {l.units}) : "";
        if (op.in_rank == 1) {  // (batch, in) x (out, in)^T + bias
          std::vector<std::string> inputs = {x, w};
          if (!b.empty()) inputs.push_back(b);
          x = g.node("Gemm", inputs, {attr_int("transB", 1)}, n);
        } else {  // on the last axis of (batch, ..., in)
          x = g.node("MatMul", {x, g.node("Transpose", {w}, {attr_ints("perm", {1, 0})})}, {}, b.empty() ? n : "");
          if (!b.empty()) x = g.node("Add", {x, b}, {}, n);
        }
        break;
      }
      case OpKind::kDropout:
        break;  // the identity when predicting
      case OpKind::kActivation:
        x = activation(g, l.activation, x, n.empty() ? fmt::format("activation{}", activations++) : n);
        break;
      case OpKind::kCategoryEncoding: {
        // One-hot every id, (batch, steps, tokens), then per example the maximum (multi-hot) or the sum (counts).
        const auto depth = g.constant(n + ".depth", {1}, std::vector<int64_t>{l.units});
        const auto values = g.constant(n + ".values", {2}, std::vector<float>{0.0f, 1.0f});
        const auto hot = g.node("OneHot", {x, depth, values}, {attr_int("axis", -1)});
        if (l.count_mode)
          x = g.node("ReduceSum", {hot, g.constant(n + ".axes", {1}, std::vector<int64_t>{1})}, {attr_int("keepdims", 0)}, n);
        else
          x = g.node("ReduceMax", {hot}, {attr_ints("axes", {1}), attr_int("keepdims", 0)}, n);
        break;
      }
    }
  }
  x = g.node("Identity", {x}, {}, "", "output");
  std::string graph = g.finish("input", input.tokens ? kInt64 : kFloat, input.shape, x, input.num_classes);
  std::string model;
  put_int_field(model, 1, 7);  // IR version 7 goes with opset 13
  put_bytes_field(model, 2, "Mirror Workbench");
  put_bytes_field(model, 3, producer_version);
  put_bytes_field(model, 7, graph);
  std::string opset;
  put_bytes_field(opset, 1, "");
  put_int_field(opset, 2, kOnnxOpset);
  put_bytes_field(model, 8, opset);
  put_bytes_field(model, 14, layer_names_entry(analysis, ids));
  return model;
}

}  // namespace mirror
