#pragma once
// Channels-last 1-D convolution blocks for the CPU: Conv1D, its ReLU and the MaxPooling1D after
// it as one autograd operation on Keras' own layout (B, steps, channels).
//
// Why: LibTorch 1.13 runs a 1-D max-pool as a 2-D one that also writes an index tensor, and wants
// channels first, so the tutorial's model spent more time permuting, pooling and keeping indices
// than multiplying (issue 16's profile: max_pool2d_with_indices alone was a quarter of a step).
// Here the convolution is one or a few GEMMs over the sequence as it lies in memory, and the
// pooling keeps no indices: its backward finds each window's maximum again from the saved
// convolution output, which is cheaper than writing and reading an index per output.
//
// The results equal Conv1d → relu → max_pool1d on the permuted input up to float rounding (the
// GEMMs sum in another order); ties in a window go to the first maximum, as LibTorch's do. Tensors
// on another device (a GPU) run LibTorch's own operations instead, with the same parameters.

#include <torch/torch.h>

namespace mirror {

struct Conv1dBlock {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t pad_begin = 0, pad_end = 0;  // zeros around each sequence ("same" padding)
  bool relu = false;                   // ReLU after the convolution
  int64_t pool = 1;                    // MaxPooling1D window after it; 1 is none
  int64_t pool_stride = 1;
  // Steps out of the convolution and out of the pooling for `steps` in; < 1 if it does not fit.
  int64_t conv_steps(int64_t steps) const { return (steps + pad_begin + pad_end - kernel) / stride + 1; }
  int64_t out_steps(int64_t steps) const {
    const int64_t c = conv_steps(steps);
    return pool == 1 ? c : (c - pool) / pool_stride + 1;
  }
};

// x (B, steps, in_channels); weight (out_channels, in_channels, kernel), LibTorch's Conv1d layout;
// bias (out_channels) or undefined. Returns (B, out_steps, out_channels), contiguous. Differentiable
// in x, weight and bias. Throws std::invalid_argument on shapes that do not fit.
torch::Tensor conv1d_block(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                           const Conv1dBlock& block);

// MaxPooling1D (valid windows) on (B, steps, channels), optionally after a ReLU; no indices kept.
torch::Tensor max_pool1d_channels_last(const torch::Tensor& x, int64_t pool, int64_t stride, bool relu);

}  // namespace mirror
