// libFuzzer target: an IDX file (the MNIST family's format), plain or gzip-compressed, as
// read_idx_ubyte reads it from disk. Anything but a DataError escaping, a crash, a leak, a hang
// or a tensor that disagrees with the header is a bug.
#include <torch/torch.h>

#include <cstddef>
#include <cstdint>

#include "mirror/data/idx.h"
#include "mirror/util/error.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mirror::fuzz::scratch().put("input-idx3-ubyte", data, size);
  try {
    const torch::Tensor t = mirror::read_idx_ubyte(path);
    // What it returns holds exactly the bytes the header declared.
    if (t.scalar_type() != torch::kUInt8 || t.dim() < 1 || t.dim() > 4) __builtin_trap();
  } catch (const mirror::DataError&) {
  }
  return 0;
}
