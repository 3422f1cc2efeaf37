#include "mirror/train/settings.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror {

namespace {
// The settings people vary by a short name: the config key each stands for and how it reads in
// words ("Learning rate"). One table, so a name cannot be known to one and not the other.
struct ShortName {
  const char* key;
  const char* words;
};
const std::map<std::string, ShortName>& short_names() {
  static const std::map<std::string, ShortName> names = {
      {"lr", {"optimizer.learning_rate", "Learning rate"}},
      {"batch", {"batch_size", "Batch size"}},
      {"logical", {"devices.logical", "Logical devices"}},
      {"epochs", {"epochs", "Epochs"}},
      {"optimizer", {"optimizer.name", "Optimizer"}},
      {"momentum", {"optimizer.momentum", "Momentum"}},
      {"seed", {"seed", "Seed"}},
      {"link", {"simulated_link", "Simulated link"}}};
  return names;
}
}  // namespace

nlohmann::json::json_pointer setting_pointer(const std::string& dotted) {
  // A JSON pointer's own characters are escaped (a name with '~' or '/' is simply not a setting).
  std::string p = "/";
  for (const char c : dotted) {
    if (c == '~') p += "~0";
    else if (c == '/') p += "~1";
    else p.push_back(c == '.' ? '/' : c);
  }
  return nlohmann::json::json_pointer(p);
}

namespace {
nlohmann::json parse_value(const std::string& text) {
  try {
    auto v = parse_json_text(text, "the value", kTypedValueJson);
    if (!v.is_structured()) return v;
  } catch (const ConfigError&) {
  }
  return text;  // a word: "adam"
}

// "Learning rate", for the settings a person sweeps by their short names; the name itself else.
std::string setting_in_words(const std::string& name) {
  const auto it = short_names().find(name);
  return it == short_names().end() ? name : it->second.words;
}

}  // namespace

std::string setting_value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

namespace {
std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
// The axis for setting `name` (a short name or a dotted key of `reference`, a config as to_json
// writes it), without values. Throws ConfigError for a setting that is not there.
SweepAxis axis_named(const std::string& name, const nlohmann::json& reference) {
  SweepAxis axis;
  axis.name = name;
  const auto alias = short_names().find(axis.name);
  axis.key = alias == short_names().end() ? axis.name : alias->second.key;
  if (axis.key.empty() || axis.key == "model" || !reference.contains(setting_pointer(axis.key)) ||
      reference.at(setting_pointer(axis.key)).is_structured()) {
    std::string known;
    for (const auto& [k, v] : short_names()) known += (known.empty() ? "" : ", ") + k;
    throw ConfigError(fmt::format("'{}' is not a setting a sweep can vary (unknown setting): use one of {}, or a "
                                  "setting as a run's config.json names it, such as optimizer.learning_rate",
                                  axis.name, known));
  }
  return axis;
}

// Throws ConfigError unless `v` has the type of `like` (the setting's current value).
void check_value_type(const SweepAxis& axis, const nlohmann::json& like, const nlohmann::json& v) {
  // A setting that is off by default (null: the simulated link) takes its text; the config reads it.
  if (like.is_null() && (v.is_string() || v.is_null())) return;
  if (like.is_number() == v.is_number() && like.is_boolean() == v.is_boolean() && like.is_string() == v.is_string() &&
      (!like.is_number_integer() || v.is_number_integer()))
    return;
  const char* expected = like.is_number_integer() ? "a whole number" : like.is_number() ? "a number"
                         : like.is_boolean()      ? "true or false" : "a word";
  throw ConfigError(fmt::format("{}: '{}' is not {}", setting_in_words(axis.name), setting_value_text(v), expected));
}
}  // namespace

SweepAxis parse_sweep_axis(const std::string& spec, const TrainConfig& base) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos)
    throw ConfigError(fmt::format("'{}': write a setting, '=' and its values, for example lr=0.01,0.1", spec));
  const nlohmann::json reference = to_json(base);
  SweepAxis axis = axis_named(trim(spec.substr(0, eq)), reference);
  const nlohmann::json& like = reference.at(setting_pointer(axis.key));
  // Values are separated by commas, spaces or both: "0.01,0.1", "0.01 0.1", "0.01, 0.1".
  std::string list = spec.substr(eq + 1);
  for (char& c : list)
    if (c == ',' || c == '\t') c = ' ';
  std::istringstream items(list);
  std::string item;
  while (items >> item) {
    nlohmann::json v = parse_value(item);
    check_value_type(axis, like, v);
    axis.values.push_back(std::move(v));
  }
  if (axis.values.empty())
    throw ConfigError(fmt::format("{}: no values given (separate several by commas or spaces)", setting_in_words(axis.name)));
  return axis;
}

TrainConfig with_settings(const TrainConfig& base, const nlohmann::json& settings) {
  if (!settings.is_object()) throw ConfigError(fmt::format("settings must be an object of names and values, not {}", settings.type_name()));
  nlohmann::json j = to_json(base);
  auto apply = [&j](const std::string& name, const nlohmann::json& v) {
    const SweepAxis axis = axis_named(name, j);
    check_value_type(axis, j.at(setting_pointer(axis.key)), v);
    j[setting_pointer(axis.key)] = v;
  };
  // The optimizer first: which of its settings exist (momentum, beta1, ...) depends on it.
  for (const auto& [name, v] : settings.items())
    if (name == "optimizer" || name == "optimizer.name") apply(name, v);
  j = to_json(config_from_json(j));
  for (const auto& [name, v] : settings.items())
    if (name != "optimizer" && name != "optimizer.name") apply(name, v);
  TrainConfig out = config_from_json(j);
  out.validate();
  return out;
}

}  // namespace mirror
