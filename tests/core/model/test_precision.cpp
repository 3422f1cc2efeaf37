// mixed-bf16 (model/precision.h): its names, the CPU check against what the kernel says of this
// CPU, the CPU kernels in bfloat16 against float64 on values bfloat16 holds exactly, and a whole
// mixed-bf16 model against its float32 self (float32 weights, gradients and logits).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include "mirror/model/builder.h"
#include "mirror/model/conv_kernels.h"
#include "mirror/model/dense_kernel.h"
#include "mirror/model/layer_spec.h"
#include "mirror/model/precision.h"
#include "mirror/model/presets.h"
#include "mirror/util/error.h"
#include "model_inputs.h"
#include "tensor_checks.h"

using namespace mirror;
using mirror::testing::expect_close;

namespace {
namespace F = torch::nn::functional;

// The flags line of /proc/cpuinfo's first processor, padded with spaces; empty where there is none.
std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("flags", 0) == 0) return " " + line.substr(line.find(':') + 1) + " ";
  return {};
}

// Small integers times a power of two: exact in bfloat16, and so are their sums below 256.
torch::Tensor exact(std::vector<int64_t> shape, int64_t low, int64_t high, double scale) {
  return torch::randint(low, high, shape, torch::kFloat64) * scale;
}

struct Grads {
  torch::Tensor out, x, w, b;
};

template <typename Fn>
Grads run(Fn&& fn, torch::Dtype dtype, const torch::Tensor& x0, const torch::Tensor& w0, const torch::Tensor& b0,
          const torch::Tensor& g) {
  auto x = x0.to(dtype).clone().requires_grad_(true);  // clone: leaves of their own, whatever dtype
  auto w = w0.to(dtype).clone().requires_grad_(true);
  auto b = b0.to(dtype).clone().requires_grad_(true);
  auto out = fn(x, w, b);
  (out * g.to(dtype)).sum().backward();
  return {out.detach(), x.grad(), w.grad(), b.grad()};
}
}  // namespace

TEST(Precision, NamesRoundTripAndUnknownOnesAreRefused) {
  for (auto p : {Precision::kFloat32, Precision::kMixedBf16}) EXPECT_EQ(parse_precision(precision_name(p)), p);
  EXPECT_EQ(precision_name(Precision::kMixedBf16), "mixed-bf16");
  try {
    parse_precision("bf16");
    FAIL() << "bf16 was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("float32 or mixed-bf16"), std::string::npos) << e.what();
  }
  try {  // a config file's text stays on the message's one line
    parse_precision("x\nmirrortrain: done");
    FAIL() << "a line break was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(Precision, TheCpuCheckAgreesWithTheKernelsFlags) {
  const std::string flags = cpu_flags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line here";
  const bool has = flags.find(" avx512_bf16 ") != std::string::npos || flags.find(" amx_bf16 ") != std::string::npos;
  const std::string why = cpu_bf16_unsupported();
  if (has && at::hasMKLDNN()) EXPECT_EQ(why, "");
  if (!has) EXPECT_NE(why.find("AVX512_BF16"), std::string::npos) << why;
  EXPECT_EQ(gpu_bf16_unsupported("NVIDIA H200", 9, 0), "");
  EXPECT_NE(gpu_bf16_unsupported("Tesla T4", 7, 5).find("Tesla T4 (compute capability 7.5)"), std::string::npos);
}

// The conv blocks' pooling, ReLU, window copies and their adjoints run in bfloat16 on the CPU
// kernels; on values bfloat16 holds exactly the only rounding left is the GEMMs' results (8 bits).
TEST(Precision, TheConvKernelsInBfloat16MatchFloat64OnExactValues) {
  struct Case {
    const char* name;
    Conv1dBlock k;
    int64_t steps, in_c, out_c;
  };
  const Case cases[] = {
      {"tutorial conv 1 (windows copied)", {5, 1, 0, 0, true, 2, 2}, 300, 7, 64},
      {"tutorial conv 2 (shifted GEMMs)", {3, 1, 0, 0, true, 2, 2}, 148, 64, 32},
      {"strided conv, overlapping pool", {4, 2, 0, 0, false, 3, 2}, 23, 8, 6},
      {"same padding, pool stride 1", {4, 1, 1, 2, true, 2, 1}, 10, 5, 7},
  };
  torch::manual_seed(21);
  for (const auto& c : cases) {
    auto x = exact({3, c.steps, c.in_c}, -2, 3, 1.0);
    auto w = exact({c.out_c, c.in_c, c.k.kernel}, -1, 2, 0.5);
    auto b = exact({c.out_c}, -2, 3, 1.0);
    auto g = exact({3, c.k.out_steps(c.steps), c.out_c}, -2, 3, 1.0);
    auto block = [&](auto& x, auto& w, auto& b) { return conv1d_block(x, w, b, c.k); };
    const auto want = run(block, torch::kFloat64, x, w, b, g);
    const auto got = run(block, torch::kBFloat16, x, w, b, g);
    ASSERT_EQ(got.out.scalar_type(), torch::kBFloat16) << c.name;
    // Ties among the window's values are exact here, so every gradient goes where float64's goes.
    EXPECT_TRUE(torch::equal(got.out.to(torch::kFloat64), want.out)) << c.name << " output";
    expect_close(got.x.to(torch::kFloat64), want.x, 1e-2, std::string(c.name) + " d/dx");
    expect_close(got.w.to(torch::kFloat64), want.w, 1e-2, std::string(c.name) + " d/dweight");
    expect_close(got.b.to(torch::kFloat64), want.b, 1e-2, std::string(c.name) + " d/dbias");
  }
}

TEST(Precision, TheDenseKernelInBfloat16MatchesFloat64) {
  torch::manual_seed(22);
  auto x = exact({32, 200}, -2, 3, 0.5), w = exact({46, 200}, -2, 3, 0.25), b = exact({46}, -2, 3, 1.0);
  auto g = exact({32, 46}, -2, 3, 1.0);
  auto layer = [](auto& x, auto& w, auto& b) { return dense(x, w, b); };
  const auto want = run(layer, torch::kFloat64, x, w, b, g);
  const auto got = run(layer, torch::kBFloat16, x, w, b, g);
  ASSERT_EQ(got.out.scalar_type(), torch::kBFloat16);
  expect_close(got.out.to(torch::kFloat64), want.out, 1e-2, "output");
  expect_close(got.x.to(torch::kFloat64), want.x, 1e-2, "d/dx");
  expect_close(got.w.to(torch::kFloat64), want.w, 1e-2, "d/dweight");
}

// The tutorial's model, an image CNN (LibTorch's Conv2d in bfloat16) and a Conv1D that LibTorch's
// Conv1d runs, in mixed-bf16: the same float32 weights from the same seed, float32 logits that are
// not float32's own, and float32 gradients that point where float32's do (to 0.98 in cosine: the
// first layers' gradients pass every rounding).
TEST(Precision, AMixedModelKeepsFloat32WeightsAndFollowsItsFloat32Self) {
  // A same-padded pool ends the channels-last stretch: the second Conv1D is LibTorch's Conv1d.
  const auto past_the_stretch = model_from_json(nlohmann::json::parse(R"({"layers": [
      {"type": "Embedding", "input_dim": "vocab", "output_dim": 8},
      {"type": "Conv1D", "filters": 12, "kernel_size": 3, "activation": "relu"},
      {"type": "MaxPooling1D", "pool_size": 2, "padding": "same"},
      {"type": "Conv1D", "filters": 10, "kernel_size": 3}, {"type": "GlobalMaxPooling1D"},
      {"type": "Dense", "units": "classes"}]})"));
  const std::tuple<const char*, ModelSpec, InputSpec> models[] = {
      {"seed-reuters", find_preset("seed-reuters").model, mirror::testing::text_input()},
      {"fashion-cnn", find_preset("fashion-cnn").model, mirror::testing::image_input()},
      {"Conv1D past the stretch", past_the_stretch, InputSpec{{40}, true, 300, 5}}};
  for (const auto& [preset, spec, input] : models) {
    const auto a = analyze(spec, input);
    ASSERT_TRUE(a.ok()) << a.describe_errors();
    torch::manual_seed(9);
    auto full = build_model(a);
    torch::manual_seed(9);
    auto mixed = build_model(a, c10::nullopt, /*cpu_kernels=*/true, Precision::kMixedBf16);
    auto fp = full->named_parameters(), mp = mixed->named_parameters();
    ASSERT_EQ(fp.keys(), mp.keys()) << preset;
    for (const auto& key : fp.keys()) {
      ASSERT_EQ(mp[key].scalar_type(), torch::kFloat32) << preset << " " << key;
      ASSERT_TRUE(torch::equal(fp[key], mp[key])) << preset << " " << key;
    }
    full->eval();  // fashion-cnn's dropout would draw its two masks differently
    mixed->eval();
    torch::manual_seed(10);
    std::vector<int64_t> shape{16};
    shape.insert(shape.end(), input.shape.begin(), input.shape.end());
    auto x = input.tokens ? torch::randint(1, input.vocab_size, shape, torch::kInt64) : torch::rand(shape);
    auto y = torch::randint(0, input.num_classes, {16}, torch::kInt64);
    auto lf = full->forward(x), lm = mixed->forward(x);
    ASSERT_EQ(lm.scalar_type(), torch::kFloat32) << preset;
    expect_close(lm, lf, 3e-2, std::string(preset) + " logits");
    EXPECT_FALSE(torch::equal(lm, lf)) << preset << ": the same logits as float32's, so nothing computed in bfloat16";
    F::cross_entropy(lf, y).backward();
    F::cross_entropy(lm, y).backward();
    for (const auto& key : fp.keys()) {
      const auto gf = fp[key].grad().flatten(), gm = mp[key].grad().flatten();
      ASSERT_EQ(gm.scalar_type(), torch::kFloat32) << preset << " " << key;
      const double cosine = (gf * gm).sum().item<double>() / (gf.norm() * gm.norm()).item<double>();
      EXPECT_GT(cosine, 0.98) << preset << " " << key << " gradient";
      EXPECT_NEAR(gm.norm().item<double>() / gf.norm().item<double>(), 1.0, 0.05) << preset << " " << key;
    }
    EXPECT_THROW(build_model(a, c10::nullopt, /*cpu_kernels=*/false, Precision::kMixedBf16), std::invalid_argument);
  }
}
