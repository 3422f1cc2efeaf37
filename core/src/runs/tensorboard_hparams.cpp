// The HParams plugin's summaries: HParamsPluginData (version 0) holding a SessionStartInfo or a
// SessionEndInfo, under the tags _hparams_/session_start_info and _hparams_/session_end_info,
// with the plugin's empty float tensor, as TensorBoard's own hparams summary writes them.
// Tested by tests/core/runs/test_tensorboard_hparams.cpp and, with TensorBoard itself, by
// tests/cli/test_tensorboard_layout.sh.
#include "mirror/runs/tensorboard_hparams.h"

#include <nlohmann/json.hpp>

#include <set>

#include "mirror/runs/tensorboard.h"
#include "util/protobuf_wire.h"

namespace mirror {

namespace {
using wire::put_bytes_field;

// google.protobuf.Value { number_value=2 | string_value=3 | bool_value=4 }
std::string value_message(const HParam& p) {
  std::string v;
  if (const auto* d = std::get_if<double>(&p.value))
    wire::put_double_field(v, 2, *d);
  else if (const auto* s = std::get_if<std::string>(&p.value))
    put_bytes_field(v, 3, *s);
  else
    wire::put_varint_field(v, 4, std::get<bool>(p.value) ? 1 : 0);
  return v;
}

// Summary.Value { tag=1, tensor=8 (DT_FLOAT of shape (0,)), metadata=9 { plugin_data=1 {
// plugin_name=1 "hparams", content=2 HParamsPluginData { version=1 0, <field> } }, data_class=4
// DATA_CLASS_TENSOR (2) } }
std::string plugin_record(double wall_time, const std::string& tag, int field, const std::string& message) {
  std::string content;
  put_bytes_field(content, field, message);  // version 0 is proto3's default, written as nothing
  std::string plugin;
  put_bytes_field(plugin, 1, "hparams");
  put_bytes_field(plugin, 2, content);
  std::string metadata;
  put_bytes_field(metadata, 1, plugin);
  wire::put_varint_field(metadata, 4, 2);
  std::string dim;  // TensorShapeProto.Dim { size=1 0 }
  std::string shape;
  put_bytes_field(shape, 2, dim);
  std::string tensor;
  wire::put_varint_field(tensor, 1, 1);
  put_bytes_field(tensor, 2, shape);
  std::string value;
  put_bytes_field(value, 1, tag);
  put_bytes_field(value, 8, tensor);
  put_bytes_field(value, 9, metadata);
  return tensorboard_summary_record(wall_time, 0, value);
}

HParam hparam(const std::string& name, const nlohmann::json& v) {
  if (v.is_boolean()) return {name, v.get<bool>()};
  if (v.is_number()) return {name, v.get<double>()};
  if (v.is_string()) return {name, v.get<std::string>()};
  return {name, v.dump()};
}
}  // namespace

std::vector<HParam> run_hparams(const nlohmann::json& config, const nlohmann::json& sweep_settings) {
  std::vector<HParam> out;
  std::set<std::string> taken;
  const auto add = [&](const std::string& key, const nlohmann::json& v) {
    if (!v.is_null() && taken.insert(key).second) out.push_back(hparam(key, v));
  };
  for (const char* key : {"/model/name", "/dataset/name", "/optimizer/name", "/optimizer/learning_rate", "/batch_size",
                          "/epochs", "/devices/devices", "/devices/logical", "/seed"}) {
    const nlohmann::json::json_pointer at(key);
    std::string dotted = std::string(key).substr(1);
    for (char& c : dotted)
      if (c == '/') c = '.';
    if (config.contains(at)) add(dotted, config.at(at));
  }
  if (sweep_settings.is_object())
    for (const auto& [key, v] : sweep_settings.items()) add(key, v);
  return out;
}

std::string hparams_start_record(double wall_time, const std::vector<HParam>& hparams) {
  std::string start;  // SessionStartInfo { hparams=1 map<string, Value>, start_time_secs=5 }
  for (const HParam& p : hparams) {
    std::string entry;
    put_bytes_field(entry, 1, p.name);
    put_bytes_field(entry, 2, value_message(p));
    put_bytes_field(start, 1, entry);
  }
  wire::put_double_field(start, 5, wall_time);
  return plugin_record(wall_time, "_hparams_/session_start_info", 3, start);
}

std::string hparams_end_record(double wall_time, int status) {
  std::string end;  // SessionEndInfo { status=1, end_time_secs=2 }
  wire::put_varint_field(end, 1, static_cast<uint64_t>(status));
  wire::put_double_field(end, 2, wall_time);
  return plugin_record(wall_time, "_hparams_/session_end_info", 4, end);
}

}  // namespace mirror
