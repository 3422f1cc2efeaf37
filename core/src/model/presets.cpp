#include "mirror/model/presets.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string_view>
#include <utility>

#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror {

// The files of resources/presets/, embedded at build time (cmake/embed_presets.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_preset_files();

Preset preset_from_json(const nlohmann::json& j, const std::string& source) {
  try {
    Preset p;
    p.model = model_from_json(j);
    p.name = j.at("preset").get<std::string>();
    p.description = j.value("description", "");
    p.dataset = j.at("dataset").get<std::string>();
    p.num_words = j.value("num_words", int64_t{0});
    p.optimizer = j.at("optimizer").get<std::string>();
    p.learning_rate = j.value("learning_rate", 0.0);
    p.batch_size = j.value("batch_size", int64_t{32});
    p.epochs = j.value("epochs", 1);
    p.logical_devices = j.value("logical_devices", 1);
    p.prefer_gpu = j.value("prefer_gpu", false);
    p.lr_schedule = j.value("lr_schedule", "");
    p.warmup_steps = j.value("warmup_steps", int64_t{0});
    p.reduce_lr_on_plateau = j.value("reduce_lr_on_plateau", "");
    p.early_stopping = j.value("early_stopping", "");
    if (p.name.empty()) throw ConfigError("\"preset\" (its name) is empty");
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("preset {}: {}", source, e.what()));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("preset {}: {}", source, e.what()));
  }
}

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = [] {
    std::vector<Preset> out;
    for (const auto& [file, text] : embedded_preset_files()) {
      const std::string source(file);
      out.push_back(preset_from_json(parse_json_text(text, fmt::format("preset {}", source), kPresetJson), source));
    }
    return out;
  }();
  return all;
}

const Preset& find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return p;
  std::string names;
  for (const auto& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
  throw ConfigError(fmt::format("unknown preset '{}' (known: {})", name, names));
}

}  // namespace mirror
