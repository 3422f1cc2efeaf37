// The channels-last 1-D convolution kernels against LibTorch's own Conv1d → relu → max_pool1d on
// the permuted input: outputs and all three gradients, on both GEMM paths, with padding, strides,
// overlapping windows, ties and NaN; and whole models built with and without the kernels.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <limits>

#include "mirror/model/builder.h"
#include "mirror/model/conv_kernels.h"
#include "mirror/model/presets.h"
#include "model_inputs.h"
#include "tensor_checks.h"

using namespace mirror;
using mirror::testing::expect_close;

namespace {
namespace F = torch::nn::functional;

torch::Tensor reference_block(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b,
                              const Conv1dBlock& k) {
  auto h = F::pad(x.permute({0, 2, 1}), F::PadFuncOptions({k.pad_begin, k.pad_end}));
  h = F::conv1d(h, w, F::Conv1dFuncOptions().bias(b).stride(k.stride));
  if (k.relu) h = torch::relu(h);
  if (k.pool > 1) h = F::max_pool1d(h, F::MaxPool1dFuncOptions(k.pool).stride(k.pool_stride));
  return h.permute({0, 2, 1});
}

struct Grads {
  torch::Tensor out, x, w, b;
};

// Output and gradients of sum(out * g) for a fixed random g.
template <typename Block>
Grads run(Block&& block, const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0,
          const torch::Tensor& g) {
  auto x = x0.clone().requires_grad_(true);
  auto w = w0.clone().requires_grad_(true);
  auto b = b0.defined() ? b0.clone().requires_grad_(true) : torch::Tensor();
  auto out = block(x, w, b);
  (out * g).sum().backward();
  return {out.detach(), x.grad(), w.grad(), b.defined() ? b.grad() : torch::Tensor()};
}


void check_block(const Conv1dBlock& k, int64_t batch, int64_t steps, int64_t in_c, int64_t out_c, bool bias,
                 torch::Dtype dtype, const std::string& name) {
  torch::manual_seed(11);
  const auto opts = torch::TensorOptions().dtype(dtype);
  auto x = torch::randn({batch, steps, in_c}, opts);
  auto w = torch::randn({out_c, in_c, k.kernel}, opts) * 0.3;
  auto b = bias ? torch::randn({out_c}, opts) : torch::Tensor();
  auto g = torch::randn({batch, k.out_steps(steps), out_c}, opts);
  const auto want = run([&](auto& x, auto& w, auto& b) { return reference_block(x, w, b, k); }, x, w, b, g);
  const auto got = run([&](auto& x, auto& w, auto& b) { return conv1d_block(x, w, b, k); }, x, w, b, g);
  const double tol = dtype == torch::kFloat64 ? 1e-12 : 2e-5;
  expect_close(got.out, want.out, tol, name + " output");
  expect_close(got.x, want.x, tol, name + " d/dx");
  expect_close(got.w, want.w, tol, name + " d/dweight");
  if (bias) expect_close(got.b, want.b, tol, name + " d/dbias");
  EXPECT_TRUE(got.out.is_contiguous()) << name;
}
}  // namespace

TEST(ConvKernels, MatchLibTorchOnBothGemmPathsAndEveryWindowShape) {
  struct Case {
    const char* name;
    Conv1dBlock k;
    int64_t steps, in_c, out_c;
    bool bias;
  };
  const Case cases[] = {
      {"tutorial conv 1 (windows copied)", {5, 1, 0, 0, true, 2, 2}, 300, 7, 64, true},
      {"tutorial conv 2 (shifted GEMMs)", {3, 1, 0, 0, true, 2, 2}, 148, 64, 32, true},
      {"odd steps, pool drops the last", {3, 1, 0, 0, true, 2, 2}, 12, 40, 8, true},
      {"no activation, no pool, no bias", {3, 1, 0, 0, false, 1, 1}, 9, 33, 5, false},
      {"strided conv, overlapping pool", {4, 2, 0, 0, false, 3, 2}, 23, 8, 6, true},
      {"same padding, pool stride 1", {4, 1, 1, 2, true, 2, 1}, 10, 5, 7, true},
      {"same padding, many channels", {3, 1, 1, 1, true, 3, 3}, 16, 48, 4, true},
      {"pool wider than its stride gap", {2, 1, 0, 0, true, 2, 3}, 14, 3, 4, true},
      {"one step out", {5, 1, 0, 0, true, 1, 1}, 5, 36, 3, true},
  };
  for (const auto& c : cases)
    for (auto dtype : {torch::kFloat64, torch::kFloat32})
      check_block(c.k, 3, c.steps, c.in_c, c.out_c, c.bias, dtype,
                  std::string(c.name) + (dtype == torch::kFloat64 ? " (double)" : " (float)"));
}

TEST(ConvKernels, TiesGoToTheFirstMaximumAndReluZerosPassNothing) {
  // Integer inputs and unit weights make many windows tie exactly and many outputs exactly 0.
  for (int64_t in_c : {2, 40}) {
    const Conv1dBlock k{2, 1, 0, 0, true, 2, 2};
    torch::manual_seed(5);
    auto x = torch::randint(-1, 2, {4, 17, in_c}).to(torch::kFloat64);
    auto w = torch::ones({3, in_c, 2}, torch::kFloat64);
    auto b = torch::zeros({3}, torch::kFloat64);
    // Integer gradients too: every sum is exact, so any difference is a gradient routed elsewhere.
    auto g = torch::randint(-3, 4, {4, k.out_steps(17), 3}).to(torch::kFloat64);
    const auto want = run([&](auto& x, auto& w, auto& b) { return reference_block(x, w, b, k); }, x, w, b, g);
    const auto got = run([&](auto& x, auto& w, auto& b) { return conv1d_block(x, w, b, k); }, x, w, b, g);
    EXPECT_TRUE(torch::equal(got.out, want.out)) << in_c;
    EXPECT_TRUE(torch::equal(got.x, want.x)) << in_c;
    EXPECT_TRUE(torch::equal(got.w, want.w)) << in_c;
    EXPECT_TRUE(torch::equal(got.b, want.b)) << in_c;
  }
}

TEST(ConvKernels, NanReachesTheOutputAsLibTorchsDoes) {
  const Conv1dBlock k{1, 1, 0, 0, true, 2, 2};
  auto x = torch::ones({1, 4, 1});
  x[0][1][0] = std::numeric_limits<float>::quiet_NaN();
  auto out = conv1d_block(x, torch::ones({1, 1, 1}), torch::Tensor(), k);
  EXPECT_TRUE(std::isnan(out[0][0][0].item<float>()));
  EXPECT_EQ(out[0][1][0].item<float>(), 1.0f);
}

TEST(ConvKernels, InputWithoutGradientStillTrainsTheWeights) {
  const Conv1dBlock k{3, 1, 0, 0, true, 2, 2};
  torch::manual_seed(2);
  auto x = torch::randn({2, 20, 4});  // a dataset's features: no gradient wanted
  auto w = (torch::randn({5, 4, 3}) * 0.3).requires_grad_(true);
  auto b = torch::randn({5}).requires_grad_(true);
  conv1d_block(x, w, b, k).sum().backward();
  auto w2 = w.detach().clone().requires_grad_(true);
  reference_block(x, w2, b.detach(), k).sum().backward();
  expect_close(w.grad(), w2.grad(), 2e-5, "d/dweight");
}

TEST(ConvKernels, PoolingAloneMatchesLibTorch) {
  torch::manual_seed(4);
  for (auto [pool, stride] : {std::pair<int64_t, int64_t>{2, 2}, {3, 1}, {2, 3}})
    for (bool relu : {false, true}) {
      auto x = torch::randn({3, 11, 6}, torch::kFloat64);
      auto g = torch::randn({3, (11 - pool) / stride + 1, 6}, torch::kFloat64);
      auto a = x.clone().requires_grad_(true);
      auto got = max_pool1d_channels_last(a, pool, stride, relu);
      (got * g).sum().backward();
      auto r = x.clone().requires_grad_(true);
      auto h = r.permute({0, 2, 1});
      if (relu) h = torch::relu(h);
      auto want = F::max_pool1d(h, F::MaxPool1dFuncOptions(pool).stride(stride)).permute({0, 2, 1});
      (want * g).sum().backward();
      EXPECT_TRUE(torch::equal(got, want)) << pool << "/" << stride << " relu " << relu;
      EXPECT_TRUE(torch::equal(a.grad(), r.grad())) << pool << "/" << stride << " relu " << relu;
    }
}

TEST(ConvKernels, ShapesThatDoNotFitAreRefused) {
  const Conv1dBlock k{5, 1, 0, 0, true, 2, 2};
  EXPECT_THROW(conv1d_block(torch::randn({2, 4, 3}), torch::randn({6, 3, 5}), torch::Tensor(), k),
               std::invalid_argument);  // 4 steps < kernel 5
  EXPECT_THROW(conv1d_block(torch::randn({2, 9, 3}), torch::randn({6, 2, 5}), torch::Tensor(), k),
               std::invalid_argument);  // weight for 2 channels
  EXPECT_THROW(conv1d_block(torch::randn({2, 9}), torch::randn({6, 3, 5}), torch::Tensor(), k),
               std::invalid_argument);
  EXPECT_THROW(max_pool1d_channels_last(torch::randn({2, 1, 3}), 2, 2, false), std::invalid_argument);
}

// Whole models: the same seed gives the same weights with and without the kernels (conv blocks and
// Dense layers), and the same logits and gradients on a batch.
TEST(ConvKernels, ModelsBuiltWithTheKernelsEqualLibTorchsModules) {
  const auto same_pad = nlohmann::json::parse(R"({"layers": [{"type": "Embedding", "input_dim": "vocab", "output_dim": 8},
      {"type": "Conv1D", "filters": 40, "kernel_size": 4, "padding": "same", "activation": "relu"},
      {"type": "Dropout", "rate": 0.0},
      {"type": "Conv1D", "filters": 12, "kernel_size": 3, "activation": "tanh"},
      {"type": "MaxPooling1D", "pool_size": 3},
      {"type": "GlobalMaxPooling1D"}, {"type": "Dense", "units": "classes"}]})");
  const auto dense_on_sequence = nlohmann::json::parse(R"({"layers": [{"type": "Embedding", "input_dim": "vocab", "output_dim": 6},
      {"type": "Conv1D", "filters": 16, "kernel_size": 2, "strides": 2, "use_bias": false},
      {"type": "Dense", "units": 5, "activation": "relu"}, {"type": "Flatten"}, {"type": "Dense", "units": "classes"}]})");
  // reuters-mlp's shape: a bag of words into Dense layers, no gradient for the input.
  const auto bag_of_words = nlohmann::json::parse(R"({"layers": [{"type": "CategoryEncoding", "num_tokens": "vocab"},
      {"type": "Dense", "units": 24, "activation": "relu"}, {"type": "Dense", "units": "classes"}]})");
  const InputSpec text{{60}, true, 200, 7};
  const std::pair<ModelSpec, InputSpec> models[] = {{find_preset("seed-reuters").model, mirror::testing::text_input()},
                                                    {model_from_json(same_pad), text},
                                                    {model_from_json(dense_on_sequence), text},
                                                    {model_from_json(bag_of_words), text}};
  for (const auto& [spec, input] : models) {
    const auto a = analyze(spec, input);
    ASSERT_TRUE(a.ok()) << a.describe_errors();
    torch::manual_seed(9);
    auto fast = build_model(a);
    torch::manual_seed(9);
    auto reference = build_model(a, c10::nullopt, /*cpu_kernels=*/false);
    auto fp = fast->named_parameters(), rp = reference->named_parameters();
    ASSERT_EQ(fp.keys(), rp.keys());
    for (const auto& key : fp.keys()) ASSERT_TRUE(torch::equal(fp[key], rp[key])) << key;
    auto x = torch::randint(1, input.vocab_size, {4, input.shape[0]}, torch::kInt64);
    auto y = torch::randint(0, input.num_classes, {4}, torch::kInt64);
    auto lf = fast->forward(x), lr = reference->forward(x);
    expect_close(lf, lr, 2e-5, a.layers[1].name + " logits");
    F::cross_entropy(lf, y).backward();
    F::cross_entropy(lr, y).backward();
    for (const auto& key : fp.keys()) expect_close(fp[key].grad(), rp[key].grad(), 2e-5, key + " gradient");
  }
}
