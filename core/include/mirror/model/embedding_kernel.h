#pragma once
// Keras' Embedding on the CPU with a gradient that is a plain scatter-add. LibTorch 1.13's
// embedding backward took 2.5 ms of a 33 ms step of the tutorial's model at batch 256 on one
// thread (76,800 ids into a 30,979 x 7 table); adding each id's row into a zeroed table takes a
// tenth of that.

#include <torch/torch.h>

namespace mirror {

// ids: integer tensor of any shape, each in [0, rows of weight); weight (rows, dim). Returns
// ids' shape + (dim), rows of weight. Differentiable in weight (a dense gradient, like
// torch::nn::Embedding's default). Throws c10::Error naming the bad id when one is out of range.
// Tensors that are not on the CPU, or a weight that is not float32/float64, go to
// torch::embedding.
torch::Tensor embedding_lookup(const torch::Tensor& ids, const torch::Tensor& weight);

}  // namespace mirror
