// libFuzzer target: a .keras file's bytes as load_model_file reads them (util/zip_read.h: every
// entry's name, kind and size checked before its config.json is inflated), the config then parsed
// as Keras' model JSON. Anything but a DataError or ConfigError escaping, a crash, a leak or a hang
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/model/layer_spec.h"
#include "mirror/util/error.h"
#include "mirror/util/zip_read.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    mirror::read_zip_members(std::string(reinterpret_cast<const char*>(data), size), "input.keras", {"config.json"},
                             {"metadata.json", "config.json", "model.weights.h5", "assets/"}, 64, 1 << 20);
  } catch (const mirror::DataError&) {
  }
  const std::string path = mirror::fuzz::scratch().put("input.keras", data, size);
  try {
    mirror::load_model_file(path);
  } catch (const mirror::ConfigError&) {
  } catch (const mirror::DataError&) {
  }
  return 0;
}
