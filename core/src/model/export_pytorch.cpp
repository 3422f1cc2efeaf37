// PyTorch source for a lowered model: one module attribute per op with parameters (and per
// Dropout), and a forward() that runs the ops in order.
#include <fmt/format.h>

#include <algorithm>
#include <fmt/ranges.h>

#include "mirror/model/export.h"
#include "mirror/model/lowering.h"
#include "mirror/util/error.h"
#include "mirror/util/python_literal.h"

namespace mirror {

namespace {
std::string tuple(const std::vector<int64_t>& v) {
  return v.size() == 1 ? std::to_string(v[0]) : fmt::format("({})", fmt::join(v, ", "));
}

std::string activation_expr(Activation a) {
  switch (a) {
    case Activation::kLinear: return "x";
    case Activation::kRelu: return "torch.relu(x)";
    case Activation::kSigmoid: return "torch.sigmoid(x)";
    case Activation::kTanh: return "torch.tanh(x)";
    case Activation::kSoftmax: return "torch.softmax(x, dim=-1)";
    case Activation::kGelu: return "F.gelu(x)";
    case Activation::kElu: return "F.elu(x)";
  }
  throw ConfigError(fmt::format("cannot export: activation {} has no PyTorch form here", activation_name(a)));
}
}  // namespace

std::string pytorch_model_source(const ModelAnalysis& analysis, const InputSpec& input, const std::string& title) {
  const std::vector<Op> ops = lower(analysis);
  const auto ids = python_layer_names(analysis);
  std::vector<std::string> init, forward;
  for (const Op& op : ops) {
    const auto& l = op.layer;
    // The op's layer as a checked identifier ("" for the ops of no layer); never the name itself.
    const std::string id = op.name.empty() ? "" : ids.at(op.name);
    auto add_module = [&](const std::string& module) {
      init.push_back(fmt::format("self.{} = {}", id, module));
      forward.push_back(fmt::format("x = self.{}(x)", id));
    };
    switch (op.kind) {
      case OpKind::kPermute:
        forward.push_back(fmt::format("x = x.permute({})", fmt::join(op.perm, ", ")));
        break;
      case OpKind::kEmbedding:
        add_module(fmt::format("nn.Embedding({}, {})", l.input_dim, l.output_dim));
        break;
      case OpKind::kConv:
        add_module(fmt::format("nn.Conv{}d({}, {}, kernel_size={}, stride={}, padding={}, bias={})", op.spatial,
                               op.in_channels, l.units, tuple(l.kernel), tuple(op.strides),
                               l.same_padding ? "\"same\"" : "0", l.use_bias ? "True" : "False"));
        break;
      case OpKind::kMaxPool:
        if (std::any_of(op.pad_begin.begin(), op.pad_begin.end(), [](int64_t b) { return b > 0; })) {
          // Keras' "same": -inf before the first window (PyTorch's padding is symmetric); ceil
          // mode lets the last window run past the end.
          std::vector<int64_t> pads;  // last axis first, as F.pad takes them
          for (size_t d = op.pad_begin.size(); d-- > 0;) pads.insert(pads.end(), {op.pad_begin[d], 0});
          forward.push_back(fmt::format("x = F.pad(x, ({}), value=float(\"-inf\"))", fmt::join(pads, ", ")));
        }
        add_module(fmt::format("nn.MaxPool{}d(kernel_size={}, stride={}, ceil_mode={})", op.spatial, tuple(l.pool),
                               tuple(op.strides), l.same_padding ? "True" : "False"));
        break;
      case OpKind::kReduceMax:
        forward.push_back(fmt::format("x = x.amax(dim={})  # {}", op.dim, id));
        break;
      case OpKind::kReduceMean:
        forward.push_back(fmt::format("x = x.mean(dim={})  # {}", op.dim, id));
        break;
      case OpKind::kFlatten:
        forward.push_back(fmt::format("x = torch.flatten(x, 1)  # {}", id));
        break;
      case OpKind::kLinear:
        add_module(fmt::format("nn.Linear({}, {}, bias={})", op.in_channels, l.units, l.use_bias ? "True" : "False"));
        break;
      case OpKind::kDropout:
        add_module(fmt::format("nn.Dropout({})", l.rate));
        break;
      case OpKind::kActivation:
        if (l.activation != Activation::kLinear)
          forward.push_back(fmt::format("x = {}{}", activation_expr(l.activation), id.empty() ? "" : "  # " + id));
        break;
      case OpKind::kCategoryEncoding:
        // Slot w of each example: 1 where id w occurs (multi_hot) or how often (count).
        forward.push_back(fmt::format("x = torch.zeros(x.shape[0], {}, device=x.device).{}  # {}", l.units,
                                      l.count_mode ? "scatter_add_(1, x, torch.ones(x.shape, device=x.device))"
                                                   : "scatter_(1, x, 1.0)",
                                      id));
        break;
    }
  }
  std::string shape = fmt::format("(batch, {})", fmt::join(input.shape, ", "));
  std::string out = fmt::format(
      "# Written by Mirror Workbench. The same computation as the trained model, with the same parameter\n"
      "# names, so the exported state dict loads into it:\n"
      "#\n"
      "#     import torch\n"
      "#     from model import Model\n"
      "#     model = Model()\n"
      "#     model.load_state_dict(torch.load(\"model.pt\"))\n"
      "#     model.eval()\n"
      "#     outputs = model(inputs)  # inputs: {} {}; outputs: (batch, {})\n"
      "#\n"
      "# TITLE says which model this is. Each layer is the attribute LAYER_NAMES maps to its name in\n"
      "# the model file (a name that is no Python identifier, or that nn.Module uses, is renamed).\n"
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch import nn\n"
      "\n"
      "TITLE = {}\n"
      "LAYER_NAMES = {{\n",
      shape, input.tokens ? "int64 token ids" : "float32", input.num_classes, python_string_literal(title));
  for (const auto& r : analysis.layers)
    out += fmt::format("    {}: {},\n", python_string_literal(ids.at(r.name)), python_string_literal(r.name));
  out +=
      "}\n"
      "\n"
      "\n"
      "class Model(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n";
  for (const auto& line : init) out += "        " + line + "\n";
  out += "\n    def forward(self, x):\n";
  for (const auto& line : forward) out += "        " + line + "\n";
  out += "        return x\n";
  return out;
}

}  // namespace mirror
