// libFuzzer target: one file of the raw Reuters-21578 SGML distribution, read as Keras' script
// read it, and its texts through Keras' tokenizer and Python 2.7's dict order.
// Anything but a DataError escaping, a crash, a leak or a hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/data/reuters_sgml.h"
#include "mirror/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    for (const auto& wire : mirror::keras_reuters_wires(bytes, "fuzz.sgm"))
      mirror::python27_dict_order(mirror::keras_text_to_words(wire.text));
  } catch (const mirror::DataError&) {
  }
  return 0;
}
