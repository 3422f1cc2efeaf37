// libFuzzer target: a model file (JSON text) as load_model_file reads it, ours or Keras' to_json().
// Anything but a ConfigError escaping model_from_json, a crash, a leak or a hang is a bug.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/model/layer_spec.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j;
  try {  // as load_model_file reads it: within the size and depth limits, or refused
    j = mirror::parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size), "input", mirror::kModelFileJson);
  } catch (const mirror::ConfigError&) {
    return 0;
  }
  try {
    const mirror::ModelSpec spec = mirror::model_from_json(j);
    // What was read writes back and reads again the same.
    if (mirror::to_json(mirror::model_from_json(mirror::to_json(spec))) != mirror::to_json(spec)) __builtin_trap();
  } catch (const mirror::ConfigError&) {
  }
  return 0;
}
