// libFuzzer target: a config as `mirrortrain train --config FILE` reads it (a bare config or a
// run.json holding one), and settings applied by name as lessons and sweeps apply them. The first
// byte picks the reader and, for settings, the preset they apply to; the rest is the text.
// A refusal (ConfigError, DataError) is fine. A bug: any other exception, a crash, a leak, a hang;
// a config that to_json and config_from_json do not carry unchanged; settings that were accepted
// but give a config that does not validate.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/model/presets.h"
#include "mirror/train/config.h"
#include "mirror/train/settings.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace {
// What config_from_json read must be what to_json writes back, and read again the same.
void check_round_trip(const mirror::TrainConfig& c) {
  const nlohmann::json once = mirror::to_json(c);
  if (mirror::to_json(mirror::config_from_json(once)) != once) __builtin_trap();
}

void config_file(const std::string& text) {
  try {
    const nlohmann::json j = mirror::parse_json_text(text, "config.json", mirror::kConfigFileJson);
    const mirror::TrainConfig c = mirror::config_from_json(j.is_object() && j.contains("config") ? j.at("config") : j);
    check_round_trip(c);
    c.validate();
  } catch (const mirror::ConfigError&) {
  } catch (const mirror::DataError&) {
  }
}

// `text` as a lesson run's "set" (a JSON object) or, when it is not JSON, as a sweep's
// "KEY=V1,V2" axis, over one of the built-in presets.
void settings(uint8_t pick, const std::string& text) {
  const auto& presets = mirror::presets();
  const mirror::TrainConfig base = mirror::config_from_preset(presets[pick % presets.size()].name);
  try {
    const nlohmann::json set = mirror::parse_json_text(text, "settings", mirror::kLessonJson);
    const mirror::TrainConfig c = mirror::with_settings(base, set);
    c.validate();  // with_settings promises a valid config
    check_round_trip(c);
  } catch (const mirror::ConfigError&) {
  } catch (const mirror::DataError&) {
  }
  try {
    const mirror::SweepAxis axis = mirror::parse_sweep_axis(text, base);
    if (axis.values.empty() || axis.key.empty()) __builtin_trap();  // an axis has a setting and values
  } catch (const mirror::ConfigError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) config_file(text);
  else settings(data[0] / 2, text);
  return 0;
}
