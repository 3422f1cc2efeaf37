// libFuzzer target: a .npy member of a Keras .npz (header, then raw data or a pickle).
// Anything but a DataError escaping, a crash, a leak or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/data/npy.h"
#include "mirror/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    mirror::parse_npy(bytes, "fuzz.npy");
  } catch (const mirror::DataError&) {
  }
  return 0;
}
