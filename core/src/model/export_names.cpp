// The names exported code gives a model's layers: checked Python identifiers, never raw text.
#include <fmt/format.h>

#include <algorithm>

#include "mirror/model/export.h"
#include "mirror/util/error.h"
#include "mirror/util/python_literal.h"

namespace mirror {

const std::vector<std::string>& torch_module_attributes() {
  // dir(torch.nn.Module()) without the names that start with '_', in PyTorch 1.13 (checked against
  // Python's by ExportNames.TorchModuleAttributesCoverPythonsOwn when python3 has torch) and the
  // ones later versions added (compile, mtia, set_submodule, ...).
  static const std::vector<std::string> kAttributes = {
      "T_destination", "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "compile",
      "cpu", "cuda", "double", "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer",
      "get_extra_state", "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia",
      "named_buffers", "named_children", "named_modules", "named_parameters", "parameters",
      "register_backward_hook", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
      "register_full_backward_hook", "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
      "register_load_state_dict_pre_hook", "register_module", "register_parameter", "register_state_dict_post_hook",
      "register_state_dict_pre_hook", "requires_grad_", "set_extra_state", "set_submodule", "share_memory",
      "state_dict", "to", "to_empty", "train", "training", "type", "xpu", "zero_grad"};
  return kAttributes;
}

std::map<std::string, std::string> python_layer_names(const ModelAnalysis& analysis) {
  std::vector<std::string> names, fallbacks;
  for (const auto& r : analysis.layers) {
    names.push_back(r.name);
    fallbacks.push_back(keras_base_name(r.resolved.kind));
  }
  const auto& reserved = torch_module_attributes();
  const auto ids = unique_python_identifiers(names, fallbacks, [&](std::string_view id) {
    return !std::binary_search(reserved.begin(), reserved.end(), id);
  });
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < names.size(); ++i) out.emplace(names[i], ids[i]);
  return out;
}

std::string exported_parameter_name(const std::map<std::string, std::string>& identifiers,
                                    const std::string& libtorch_name) {
  const size_t dot = libtorch_name.find('.');
  const auto it = dot == std::string::npos ? identifiers.end() : identifiers.find(libtorch_name.substr(0, dot));
  if (it == identifiers.end())
    throw ConfigError(fmt::format("cannot export: parameter {} belongs to no layer of the model",
                                  python_string_literal(libtorch_name)));
  return it->second + libtorch_name.substr(dot);
}

}  // namespace mirror
