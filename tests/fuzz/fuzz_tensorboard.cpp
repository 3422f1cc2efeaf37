// libFuzzer target: a TensorBoard event file (length-prefixed records with masked CRC-32Cs around
// Event protocol buffers) as read_tensorboard_scalars reads it. It never throws for damaged
// content (it stops at the first bad record with a warning); anything escaping, a crash, a leak
// or a hang is a bug. Seeds carry valid CRCs, so the fuzzer reaches the protocol buffers.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/runs/tensorboard.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mirror::fuzz::scratch().put("events.out.tfevents.0.fuzz", data, size);
  std::string warning;
  const auto points = mirror::read_tensorboard_scalars(path, &warning);
  // Each record holds at most one scalar and takes at least 16 bytes.
  if (points.size() > size / 16) __builtin_trap();
  return 0;
}
