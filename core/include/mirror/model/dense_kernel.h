#pragma once
// Keras' Dense on the CPU: y = x · weightᵀ + bias over the last axis, as one autograd operation
// whose matrix products run on cpu_gemm (oneDNN where the build has it). LibTorch's own linear
// runs them on OpenBLAS, whose thread pool fights OpenMP's for the cores when a replica has more
// than one thread; keeping every product of the tutorial's model in one pool is what lets one
// replica train faster on two threads than on one.

#include <torch/torch.h>

namespace mirror {

// x (..., in_features); weight (out_features, in_features), LibTorch's Linear layout; bias
// (out_features) or undefined. Returns (..., out_features). Differentiable in all three; the
// gradient of x is computed only when x requires one. Equal to torch::nn::functional::linear up to
// float rounding; tensors that are not on the CPU, or not float32/float64, go to it directly.
// Throws std::invalid_argument when the shapes do not fit.
torch::Tensor dense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

}  // namespace mirror
