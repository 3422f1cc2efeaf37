#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>

#include "mirror/optim/optimizer.h"
#include "mirror/util/error.h"
#include "nadam_golden.h"

using namespace mirror;

namespace {
// Runs `steps` updates on the quadratic loss sum w (p - c)^2 and returns the parameters.
torch::Tensor run_quadratic(const OptimizerConfig& cfg, torch::Tensor p, const torch::Tensor& w,
                            const torch::Tensor& c, int steps) {
  auto opt = make_optimizer(cfg, p);
  for (int s = 0; s < steps; ++s) {
    auto g = 2 * w * (p - c);
    opt->step(p, g);
  }
  return p;
}

std::string config_error(const OptimizerConfig& c) {
  try {
    c.validate();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Nadam, MatchesGoldenValuesFromPyTorchNAdamWithKerasSettings) {
  using namespace mirror::testing;
  auto w = torch::tensor(std::vector<float>(std::begin(kNadamW), std::end(kNadamW)));
  auto c = torch::tensor(std::vector<float>(std::begin(kNadamC), std::end(kNadamC)));
  auto p = torch::tensor(std::vector<float>(std::begin(kNadamP0), std::end(kNadamP0)));
  OptimizerConfig cfg;
  cfg.name = "nadam";
  cfg.learning_rate = 0.01;
  auto opt = make_optimizer(cfg, p);
  size_t check = 0;
  for (int step = 1; step <= kNadamCheckSteps[std::size(kNadamCheckSteps) - 1]; ++step) {
    auto g = 2 * w * (p - c);
    opt->step(p, g);
    if (step == kNadamCheckSteps[check]) {
      for (int i = 0; i < 8; ++i)
        EXPECT_NEAR(p[i].item<float>(), kNadamAfterStep[check][i], 2e-6 + 2e-6 * std::abs(kNadamAfterStep[check][i]))
            << "step " << step << " element " << i;
      ++check;
    }
  }
  EXPECT_EQ(check, std::size(kNadamCheckSteps));
  EXPECT_EQ(opt->iterations(), kNadamCheckSteps[std::size(kNadamCheckSteps) - 1]);
}

TEST(Adam, FollowsKerasEpsilonHatFormula) {
  // Keras: alpha = lr sqrt(1 - b2^t) / (1 - b1^t); p -= alpha m / (sqrt(v) + eps), here in double.
  const std::vector<double> p0 = {1.0, -2.0, 0.5}, w = {1.0, 3.0, 0.1};
  const double lr = 0.05, b1 = 0.9, b2 = 0.999, eps = 1e-7;
  std::vector<double> p = p0, m(3, 0), v(3, 0);
  for (int t = 1; t <= 6; ++t)
    for (int i = 0; i < 3; ++i) {
      const double g = 2 * w[i] * p[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      const double alpha = lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
      p[i] -= alpha * m[i] / (std::sqrt(v[i]) + eps);
    }
  OptimizerConfig cfg;
  cfg.name = "adam";
  cfg.learning_rate = lr;
  auto got = run_quadratic(cfg, torch::tensor({1.0f, -2.0f, 0.5f}), torch::tensor({1.0f, 3.0f, 0.1f}),
                           torch::zeros({3}), 6);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(got[i].item<float>(), p[i], 1e-5);
}

TEST(Sgd, MomentumAndNesterovFollowKeras) {
  // One parameter, gradient 2p (w = 1, c = 0), lr 0.1, momentum 0.9, written out by hand.
  OptimizerConfig cfg;
  cfg.name = "sgd";
  cfg.learning_rate = 0.1;
  cfg.momentum = 0.9;
  double p = 1.0, vel = 0.0;
  for (int s = 0; s < 3; ++s) {
    vel = 0.9 * vel - 0.1 * 2 * p;
    p += vel;
  }
  EXPECT_NEAR(run_quadratic(cfg, torch::tensor({1.0f}), torch::ones({1}), torch::zeros({1}), 3).item<float>(), p, 1e-6);
  cfg.nesterov = true;
  p = 1.0;
  vel = 0.0;
  for (int s = 0; s < 3; ++s) {
    const double g = 2 * p;
    vel = 0.9 * vel - 0.1 * g;
    p += 0.9 * vel - 0.1 * g;
  }
  EXPECT_NEAR(run_quadratic(cfg, torch::tensor({1.0f}), torch::ones({1}), torch::zeros({1}), 3).item<float>(), p, 1e-6);
}

TEST(RmsProp, FollowsKeras) {
  OptimizerConfig cfg;
  cfg.name = "rmsprop";
  cfg.learning_rate = 0.01;
  double p = 2.0, v = 0.0;
  for (int s = 0; s < 4; ++s) {
    const double g = 2 * p;
    v = 0.9 * v + 0.1 * g * g;
    p -= 0.01 * g / (std::sqrt(v) + 1e-7);
  }
  EXPECT_NEAR(run_quadratic(cfg, torch::tensor({2.0f}), torch::ones({1}), torch::zeros({1}), 4).item<float>(), p, 1e-6);
}

TEST(AdamW, DecaysWeightsBeforeTheAdamStep) {
  OptimizerConfig plain, decayed;
  plain.name = "adam";
  decayed.name = "adamw";
  decayed.weight_decay = 0.1;
  const auto w = torch::zeros({2});  // zero gradient: only the decay moves the weights
  auto a = run_quadratic(plain, torch::tensor({1.0f, -1.0f}), w, torch::zeros({2}), 3);
  auto b = run_quadratic(decayed, torch::tensor({1.0f, -1.0f}), w, torch::zeros({2}), 3);
  EXPECT_FLOAT_EQ(a[0].item<float>(), 1.0f);
  EXPECT_NEAR(b[0].item<float>(), std::pow(1.0 - 0.1 * 0.001, 3), 1e-7);
}

TEST(OptimizerConfig, KerasDefaultsAndClearErrors) {
  OptimizerConfig c;
  EXPECT_DOUBLE_EQ(c.with_name("sgd").effective_learning_rate(), 0.01);
  EXPECT_DOUBLE_EQ(c.with_name("nadam").effective_learning_rate(), 0.001);
  EXPECT_DOUBLE_EQ(c.with_name("adamw").effective_weight_decay(), 0.004);
  EXPECT_DOUBLE_EQ(c.epsilon, 1e-7);
  EXPECT_NE(config_error(OptimizerConfig{}.with_name("adagrad")).find("unknown optimizer 'adagrad'"), std::string::npos);
  EXPECT_NE(config_error(OptimizerConfig{}.with_learning_rate(-1)).find("invalid learning rate: -1"), std::string::npos);
  EXPECT_NE(config_error(OptimizerConfig{}.with_learning_rate(std::nan(""))).find("invalid learning rate"), std::string::npos);
  EXPECT_NE(config_error(OptimizerConfig{}.with_name("sgd").with_momentum(1.5)).find("invalid momentum: 1.5"), std::string::npos);
  EXPECT_NE(config_error(OptimizerConfig{}.with_name("adam").with_nesterov(true)).find("sgd optimizer only"), std::string::npos);
}

// On a contiguous float buffer on the CPU, Adam, AdamW and Nadam run one fused pass; on anything
// else (a strided buffer here, a GPU in a run) they run as LibTorch operations. Both must give the
// same parameters and slots, step after step.
TEST(FusedUpdates, EqualTheLibTorchOperationsTheyReplace) {
  for (const char* name : {"adam", "adamw", "nadam"})
    for (double beta1 : {0.9, 0.3}) {  // LibTorch's lerp rounds differently on either side of 0.5
      OptimizerConfig cfg;
      cfg.name = name;
      cfg.beta1 = beta1;
      cfg.learning_rate = 0.01;
      torch::manual_seed(7);
      const int64_t n = 70001;  // several parallel spans and a ragged end
      auto start = torch::randn({n});
      auto fused_p = start.clone();
      auto strided = torch::zeros({2 * n});
      auto plain_p = strided.slice(0, 0, 2 * n, 2);
      plain_p.copy_(start);
      ASSERT_FALSE(plain_p.is_contiguous());
      auto fused = make_optimizer(cfg, fused_p);
      auto plain = make_optimizer(cfg, plain_p);
      for (int step = 0; step < 30; ++step) {
        auto g = torch::randn({n}) * (step % 3 == 0 ? 1e-4 : 1.0);
        fused->step(fused_p, g);
        plain->step(plain_p, g);
      }
      const double diff = (fused_p - plain_p).abs().max().item<double>();
      EXPECT_LE(diff, 1e-6) << name << " beta1 " << beta1;
      EXPECT_FALSE(torch::equal(fused_p, start)) << name;
      const auto fs = fused->slots(), ps = plain->slots();
      ASSERT_EQ(fs.size(), ps.size());
      for (size_t i = 0; i < fs.size(); ++i)
        EXPECT_LE((fs[i].second - ps[i].second).abs().max().item<double>(), 1e-6) << name << " " << fs[i].first;
    }
}
