// PyTorch source for a lowered model: one module attribute per op with parameters (and per
// Dropout), and a forward() that runs the ops in order.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include "mirror/model/export.h"
#include "mirror/model/lowering.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
bool python_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// A Python string literal for `s` (layer names are printable; quotes and backslashes escaped).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

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
  std::vector<std::string> init, forward;
  for (const Op& op : lower(analysis)) {
    const auto& l = op.layer;
    // The module attribute for a named op: self.conv1d, or self._modules["odd name"].
    const std::string self = python_identifier(op.name) ? "self." + op.name : fmt::format("self._modules[{}]", quoted(op.name));
    auto add_module = [&](const std::string& module) {
      if (python_identifier(op.name)) init.push_back(fmt::format("{} = {}", self, module));
      else init.push_back(fmt::format("self.add_module({}, {})", quoted(op.name), module));
      forward.push_back(fmt::format("x = {}(x)", self));
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
        add_module(fmt::format("nn.MaxPool{}d(kernel_size={}, stride={}, ceil_mode={})", op.spatial, tuple(l.pool),
                               tuple(op.strides), l.same_padding ? "True" : "False"));
        break;
      case OpKind::kReduceMax:
        forward.push_back(fmt::format("x = x.amax(dim={})  # {}", op.dim, op.name));
        break;
      case OpKind::kReduceMean:
        forward.push_back(fmt::format("x = x.mean(dim={})  # {}", op.dim, op.name));
        break;
      case OpKind::kFlatten:
        forward.push_back(fmt::format("x = torch.flatten(x, 1)  # {}", op.name));
        break;
      case OpKind::kLinear:
        add_module(fmt::format("nn.Linear({}, {}, bias={})", op.in_channels, l.units, l.use_bias ? "True" : "False"));
        break;
      case OpKind::kDropout:
        add_module(fmt::format("nn.Dropout({})", l.rate));
        break;
      case OpKind::kActivation:
        if (l.activation != Activation::kLinear)
          forward.push_back(fmt::format("x = {}{}", activation_expr(l.activation), op.name.empty() ? "" : "  # " + op.name));
        break;
      case OpKind::kCategoryEncoding:
        // Slot w of each example: 1 where id w occurs (multi_hot) or how often (count).
        forward.push_back(fmt::format("x = torch.zeros(x.shape[0], {}, device=x.device).{}  # {}", l.units,
                                      l.count_mode ? "scatter_add_(1, x, torch.ones(x.shape, device=x.device))"
                                                   : "scatter_(1, x, 1.0)",
                                      op.name));
        break;
    }
  }
  std::string shape = fmt::format("(batch, {})", fmt::join(input.shape, ", "));
  std::string out = fmt::format(
      "# {}\n"
      "# Written by Mirror Workbench. The same computation as the trained model, with the same parameter\n"
      "# names, so the exported state dict loads into it:\n"
      "#\n"
      "#     import torch\n"
      "#     from model import Model\n"
      "#     model = Model()\n"
      "#     model.load_state_dict(torch.load(\"model.pt\"))\n"
      "#     model.eval()\n"
      "#     outputs = model(inputs)  # inputs: {} {}; outputs: (batch, {})\n"
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from torch import nn\n"
      "\n"
      "\n"
      "class Model(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n",
      title, shape, input.tokens ? "int64 token ids" : "float32", input.num_classes);
  for (const auto& line : init) out += "        " + line + "\n";
  out += "\n    def forward(self, x):\n";
  for (const auto& line : forward) out += "        " + line + "\n";
  out += "        return x\n";
  return out;
}

}  // namespace mirror
