// libFuzzer target: a Keras .npz archive (zip of .npy members) as read_npz reads it from disk,
// asking for the members Reuters' file holds. Anything but a DataError escaping, a crash, a leak
// or a hang is a bug.
#include <cstddef>
#include <cstdint>

#include "mirror/data/npy.h"
#include "mirror/util/error.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mirror::fuzz::scratch().put("input.npz", data, size);
  try {
    mirror::read_npz(path, {"x", "y"});
  } catch (const mirror::DataError&) {
  }
  return 0;
}
