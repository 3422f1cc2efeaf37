// libFuzzer target: the restricted unpickler on its own (numpy's object arrays of int lists).
// Anything but a DataError escaping, a crash, a leak or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/data/pickle.h"
#include "mirror/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    mirror::unpickle_object_array(bytes, "fuzz.pkl", int64_t{1} << 22);
  } catch (const mirror::DataError&) {
  }
  return 0;
}
