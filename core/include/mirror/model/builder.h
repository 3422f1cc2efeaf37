#pragma once
// Builds LibTorch modules from an analysed ModelSpec.

#include <torch/nn/modules/container/sequential.h>

#include "mirror/model/precision.h"
#include "mirror/model/shape.h"

namespace mirror {

// Builds the model as a torch::nn::Sequential that takes a batch in Keras layout (B, ...) and
// returns logits (B, classes) (log-probabilities when the analysis trains on probabilities and the
// model ends in a softmax: see ModelSpec::train_on_probabilities); layout changes for LibTorch's channels-first convolutions are
// inserted where needed. Parameters are initialised from LibTorch's default generator: seed it
// first for reproducible weights. Throws ConfigError if `analysis` is not ok().
// Dropout layers draw from `dropout_generator` when given (one per replica keeps runs
// deterministic), else from the default generator.
// 1-D convolutions and pools run channels last on conv_kernels.h's CPU kernels, Dense and
// Embedding layers on dense_kernel.h's and embedding_kernel.h's (LibTorch's own operations on
// other devices); `cpu_kernels` false builds them from LibTorch's modules instead (channels-first
// Conv1d and MaxPool1d, Linear, Embedding), the reference the kernels are tested and measured
// against. Both draw the same initial weights from the same seed and name their parameters the
// same. `precision` mixed-bf16 (precision.h) computes each layer in bfloat16 from its float32
// parameters and returns float32 logits; it needs `cpu_kernels` (std::invalid_argument otherwise).
torch::nn::Sequential build_model(const ModelAnalysis& analysis,
                                  c10::optional<at::Generator> dropout_generator = c10::nullopt,
                                  bool cpu_kernels = true, Precision precision = Precision::kFloat32);

}  // namespace mirror
