#pragma once
// The matrix products of the hand-written CPU layers (conv_kernels.h, dense_kernel.h).
//
// With oneDNN (Debian's libdnnl-dev, found at configure time) float32 products run on
// dnnl_sgemm: on the tutorial's shapes it is 2x OpenBLAS on one thread and, because it threads
// through the same OpenMP pool as LibTorch's parallel loops, it also scales to two threads, where
// OpenBLAS' own thread pool and OpenMP's spinning workers fought for the two cores (one replica on
// two threads trained at half the speed of one thread). Other dtypes, and builds without oneDNN,
// use LibTorch's mm (OpenBLAS).

#include <torch/torch.h>

#include <string>

namespace mirror::cpu_gemm {

// out = a · b, or out += a · b when `accumulate`. a (M, K), b (K, N), out (M, N): CPU tensors of
// one floating dtype; a and b may be transposed views; out's rows must be contiguous (stride(1) 1).
void mm_into(torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b, bool accumulate);

// "oneDNN <version>" or "LibTorch mm (BLAS)": what mm_into runs float32 products on. Recorded in
// run.json (machine.cpu_gemm) and printed by `mirrortrain devices`. Thread-safe.
std::string library();

}  // namespace mirror::cpu_gemm
