// The Dense and Embedding kernels against LibTorch's linear and embedding. Dense: outputs and the
// three gradients in float32 (on oneDNN's sgemm where the build has it) and float64, on 2-D and
// 3-D inputs, with transposed and sliced operands, without a bias, and without a gradient for the
// input. Embedding: rows, repeated ids, ids out of range.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>

#include "mirror/model/dense_kernel.h"
#include "mirror/model/embedding_kernel.h"
#include "tensor_checks.h"

using namespace mirror;
using mirror::testing::expect_close;

namespace {
namespace F = torch::nn::functional;


struct Result {
  torch::Tensor out, x, w, b;
};

template <typename Layer>
Result run(Layer&& layer, const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0,
           const torch::Tensor& g, bool x_grad) {
  // clone() keeps x0's strides, so a transposed or sliced input stays one.
  auto x = x0.clone();
  if (x_grad) x.requires_grad_(true);
  auto w = w0.clone().requires_grad_(true);
  auto b = b0.defined() ? b0.clone().requires_grad_(true) : torch::Tensor();
  auto out = layer(x, w, b);
  (out * g).sum().backward();
  return {out.detach(), x_grad ? x.grad() : torch::Tensor(), w.grad(), b.defined() ? b.grad() : torch::Tensor()};
}

void check(const torch::Tensor& x, int64_t out_features, bool bias, bool x_grad, const std::string& name) {
  torch::manual_seed(5);
  const auto opts = x.options();
  auto w = torch::randn({out_features, x.size(-1)}, opts) * 0.2;
  auto b = bias ? torch::randn({out_features}, opts) : torch::Tensor();
  auto shape = x.sizes().vec();
  shape.back() = out_features;
  auto g = torch::randn(shape, opts);
  const auto want = run([](auto& x, auto& w, auto& b) { return F::linear(x, w, b); }, x, w, b, g, x_grad);
  const auto got = run([](auto& x, auto& w, auto& b) { return dense(x, w, b); }, x, w, b, g, x_grad);
  const double tol = x.scalar_type() == torch::kFloat64 ? 1e-12 : 2e-5;
  expect_close(got.out, want.out, tol, name + " output");
  expect_close(got.w, want.w, tol, name + " d/dweight");
  if (bias) expect_close(got.b, want.b, tol, name + " d/dbias");
  if (x_grad) expect_close(got.x, want.x, tol, name + " d/dx");
  else EXPECT_FALSE(got.x.defined()) << name;
}
}  // namespace

TEST(DenseKernel, MatchesLibTorchsLinear) {
  for (auto dtype : {torch::kFloat32, torch::kFloat64}) {
    const auto opts = torch::TensorOptions().dtype(dtype);
    const std::string t = dtype == torch::kFloat32 ? " float32" : " float64";
    torch::manual_seed(3);
    check(torch::randn({32, 2336}, opts), 46, true, true, "tutorial's Dense" + t);
    check(torch::randn({7, 300, 5}, opts), 9, true, true, "Dense on a sequence" + t);
    check(torch::randn({1, 3}, opts), 1, false, true, "one example, one unit, no bias" + t);
    check(torch::randn({40, 64}, opts).t(), 12, true, true, "transposed input" + t);
    check(torch::randn({16, 50}, opts).narrow(1, 5, 30), 8, true, true, "sliced input" + t);
    check(torch::randn({24, 100}, opts), 33, true, false, "input without a gradient" + t);
  }
}

TEST(DenseKernel, RefusesShapesThatDoNotFit) {
  EXPECT_THROW(dense(torch::randn({4, 5}), torch::randn({3, 6}), torch::Tensor()), std::invalid_argument);
  EXPECT_THROW(dense(torch::randn({4, 5}), torch::randn({3, 5}), torch::randn({4})), std::invalid_argument);
  EXPECT_THROW(dense(torch::randn({4, 5}), torch::randn({3, 5, 1}), torch::Tensor()), std::invalid_argument);
}

TEST(DenseKernel, PassesNaNThrough) {
  auto x = torch::randn({4, 6});
  x[2][3] = std::numeric_limits<float>::quiet_NaN();
  const auto y = dense(x, torch::randn({5, 6}), torch::randn({5}));
  EXPECT_TRUE(torch::isnan(y[2]).all().item<bool>());
  EXPECT_FALSE(torch::isnan(y[1]).any().item<bool>());
}

// The Embedding kernel against torch::embedding: rows, and a gradient in which repeated ids sum.
TEST(EmbeddingKernel, MatchesLibTorchsEmbeddingWithRepeatedIds) {
  for (auto dtype : {torch::kFloat32, torch::kFloat64}) {
    torch::manual_seed(4);
    auto w0 = torch::randn({50, 7}, torch::TensorOptions().dtype(dtype));
    auto ids = torch::randint(0, 50, {6, 40}, torch::kInt64);
    ids[0][0] = 49;
    ids[1][3] = 0;
    ids[2].fill_(17);  // one id many times
    auto g = torch::randn({6, 40, 7}, w0.options());
    auto w = w0.clone().requires_grad_(true), wr = w0.clone().requires_grad_(true);
    auto got = embedding_lookup(ids, w), want = torch::embedding(wr, ids);
    EXPECT_TRUE(torch::equal(got, want));  // a lookup: the same numbers
    (got * g).sum().backward();
    (want * g).sum().backward();
    expect_close(w.grad(), wr.grad(), dtype == torch::kFloat64 ? 1e-12 : 1e-5, "d/dweight");
    EXPECT_TRUE(torch::equal(embedding_lookup(ids.to(torch::kInt32), w0), want.detach())) << "int32 ids";
  }
}

TEST(EmbeddingKernel, RefusesAnIdOutsideTheTable) {
  auto w = torch::randn({5, 3}, torch::requires_grad());
  EXPECT_THROW(embedding_lookup(torch::tensor({1, 5}), w), c10::Error);
  EXPECT_THROW(embedding_lookup(torch::tensor({-1, 2}), w), c10::Error);
}
