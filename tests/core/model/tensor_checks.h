#pragma once
// Comparing a kernel's tensors with LibTorch's, for the kernel tests.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <string>

namespace mirror::testing {

// got equals want in shape, and elementwise to within tol × max(1, max |want|).
inline void expect_close(const torch::Tensor& got, const torch::Tensor& want, double tol, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const double scale = std::max(1.0, want.abs().max().item<double>());
  const double diff = (got - want).abs().max().item<double>();
  EXPECT_LE(diff, tol * scale) << what << ": max |difference| " << diff;
}

}  // namespace mirror::testing
