#pragma once
// The number format a model computes in. Keras' "mixed_bfloat16" policy: the layers compute in
// bfloat16 (inputs and a bfloat16 copy of the weights, cast each step), the weights, their
// gradients, the optimizer's state and the loss stay float32. Plain values, no torch.

#include <string>

namespace mirror {

enum class Precision {
  kFloat32,    // everything in float32 (the default)
  kMixedBf16,  // Keras' mixed_bfloat16
};

// "float32", "mixed-bf16": what --precision and the run's config.json say.
std::string precision_name(Precision p);
// The inverse of precision_name; throws ConfigError naming the accepted values.
Precision parse_precision(const std::string& name);

// Why this machine's CPU cannot compute in bfloat16 at a useful speed (no AVX512_BF16 nor
// AMX-BF16 instructions, or a LibTorch without oneDNN, which would emulate every product in
// float32), in one line a person can act on; empty when it can.
std::string cpu_bf16_unsupported();
// The same for a GPU of compute capability major.minor: bfloat16 arithmetic needs 8.0 (Ampere).
std::string gpu_bf16_unsupported(const std::string& gpu_name, int compute_major, int compute_minor);

}  // namespace mirror
