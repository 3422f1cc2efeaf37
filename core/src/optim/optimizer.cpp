#include "mirror/optim/optimizer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <stdexcept>

#ifdef MIRROR_HAVE_CUDA_KERNELS
#include <c10/cuda/CUDAStream.h>
#endif

#include "fused_update.h"
#include "mirror/util/error.h"

namespace mirror {

void clip_gradients(const OptimizerConfig& c, torch::Tensor& grads, const std::vector<int64_t>& segments) {
  if (!c.clips()) return;
  torch::NoGradGuard no_grad;
  // Keras' order: per weight, then global, then by value. Norms in float64 so that the result
  // does not depend on how a reduction was split over threads more than float32 rounding does.
  if (c.clipnorm > 0) {
    int64_t offset = 0;
    for (int64_t n : segments) {
      auto g = grads.narrow(0, offset, n);
      const double norm = g.to(torch::kFloat64).norm().item<double>();
      if (norm > c.clipnorm) g.mul_(c.clipnorm / norm);
      offset += n;
    }
  }
  if (c.global_clipnorm > 0) {
    const double norm = grads.to(torch::kFloat64).norm().item<double>();
    if (norm > c.global_clipnorm) grads.mul_(c.global_clipnorm / norm);
  }
  if (c.clipvalue > 0) grads.clamp_(-c.clipvalue, c.clipvalue);
}

void Optimizer::load_slots(const std::vector<std::pair<std::string, torch::Tensor>>& saved, int64_t iterations) {
  torch::NoGradGuard no_grad;
  for (auto& [name, mine] : slots()) {
    const auto it = std::find_if(saved.begin(), saved.end(), [&](const auto& s) { return s.first == name; });
    if (it == saved.end()) throw DataError(fmt::format("checkpoint has no optimizer slot '{}'", name));
    if (it->second.sizes() != mine.sizes())
      throw DataError(fmt::format("checkpoint's optimizer slot '{}' has {} values, this model needs {}", name,
                                  it->second.numel(), mine.numel()));
    mine.copy_(it->second);  // slots() hands out the optimizer's own tensors
  }
  iterations_ = iterations;
}

void Optimizer::step(torch::Tensor& params, const torch::Tensor& grads) {
  apply_update(next_update(), params, grads, update_slots());
}

void apply_update(const UpdateScalars& update, torch::Tensor& p, const torch::Tensor& g,
                  const std::array<torch::Tensor, 2>& slots, const torch::Tensor& device_values) {
  auto fits = [&](const torch::Tensor& t) {
    return t.defined() && t.scalar_type() == torch::kFloat32 && t.is_contiguous() && t.device() == p.device() &&
           t.numel() == p.numel();
  };
  if (!fits(p) || !fits(g) || (slots[0].defined() && !fits(slots[0])) || (slots[1].defined() && !fits(slots[1])))
    throw std::invalid_argument("fused update: parameters, gradients and slots must be contiguous float32 buffers "
                                "of one size on one device");
  fused::Values k{};
  std::copy(update.values.begin(), update.values.end(), k.v);
  auto ptr = [](const torch::Tensor& t) { return t.defined() ? t.data_ptr<float>() : nullptr; };
  if (p.is_cpu()) {
    if (device_values.defined()) {
      // The capture-ready path on the CPU: the numbers as the device would read them.
      const auto values = device_values.to(torch::kCPU, torch::kFloat32).contiguous();
      std::copy(values.data_ptr<float>(), values.data_ptr<float>() + fused::kValues, k.v);
    }
    fused::update_cpu(update.kind, k, p.data_ptr<float>(), g.data_ptr<float>(), ptr(slots[0]), ptr(slots[1]),
                      p.numel());
    return;
  }
#ifdef MIRROR_HAVE_CUDA_KERNELS
  if (p.is_cuda()) {
    const float* k_device = nullptr;
    if (device_values.defined()) {
      if (device_values.device() != p.device() || device_values.scalar_type() != torch::kFloat32 ||
          device_values.numel() != fused::kValues || !device_values.is_contiguous())
        throw std::invalid_argument("fused update: the device's numbers must be 8 contiguous float32 on its GPU");
      k_device = device_values.data_ptr<float>();
    }
    const auto stream = c10::cuda::getCurrentCUDAStream(p.device().index());
    if (const char* error = fused::update_cuda(update.kind, k, k_device, p.data_ptr<float>(), g.data_ptr<float>(),
                                               ptr(slots[0]), ptr(slots[1]), p.numel(), stream.stream()))
      throw RunError(fmt::format("the fused optimizer update could not start on {}: {}", p.device().str(), error));
    return;
  }
#endif
  throw std::invalid_argument(fmt::format("fused update: no fused update on {}", p.device().str()));
}

namespace {
// The fused update runs on contiguous float32 buffers: on a GPU (where this build has our CUDA
// kernels), and on the CPU for the optimizers whose LibTorch operations it replaced there (Adam,
// AdamW, Nadam; SGD's and RMSprop's CPU updates stay LibTorch's). Elsewhere the formulas run as
// LibTorch operations.
#ifdef MIRROR_HAVE_CUDA_KERNELS
constexpr bool kFusedOnGpu = true;
#else
constexpr bool kFusedOnGpu = false;
#endif
bool fusable(const torch::Tensor& p, const torch::Tensor& g, bool on_cpu_too) {
  return ((kFusedOnGpu && p.is_cuda()) || (on_cpu_too && p.is_cpu())) && p.scalar_type() == torch::kFloat32 &&
         g.scalar_type() == torch::kFloat32 && p.is_contiguous() && g.is_contiguous();
}

UpdateScalars scalars(int32_t kind, std::initializer_list<double> values) {
  UpdateScalars u;
  u.kind = kind;
  size_t i = 0;
  for (double v : values) u.values[i++] = static_cast<float>(v);
  return u;
}

// Keras SGD: velocity = momentum * velocity - lr * g; var += velocity
// (Nesterov: var += momentum * velocity - lr * g, with the updated velocity).
class Sgd : public Optimizer {
 public:
  Sgd(const OptimizerConfig& c, const torch::Tensor& p)
      : Optimizer(c.effective_learning_rate()), momentum_(c.momentum), nesterov_(c.nesterov) {
    if (momentum_ > 0) velocity_ = torch::zeros_like(p);
  }
  void step(torch::Tensor& p, const torch::Tensor& g) override {
    if (fusable(p, g, /*on_cpu_too=*/false)) return Optimizer::step(p, g);
    ++iterations_;
    if (momentum_ == 0) { p.add_(g, -lr_); return; }
    velocity_.mul_(momentum_).add_(g, -lr_);
    if (nesterov_) p.add_(velocity_, momentum_).add_(g, -lr_);
    else p.add_(velocity_);
  }
  UpdateScalars next_update() override {
    ++iterations_;
    if (momentum_ == 0) return scalars(fused::kSgd, {-lr_});
    return scalars(nesterov_ ? fused::kSgdNesterov : fused::kSgdMomentum, {-lr_, momentum_});
  }
  std::array<torch::Tensor, 2> update_slots() const override { return {velocity_, torch::Tensor()}; }
  std::vector<std::pair<std::string, torch::Tensor>> slots() const override {
    if (!velocity_.defined()) return {};
    return {{"velocity", velocity_}};
  }

 private:
  double momentum_;
  bool nesterov_;
  torch::Tensor velocity_;
};

// Keras Adam / AdamW:
//   m = m + (g - m)(1 - beta1)            (moving average of gradients)
//   v = v + (g^2 - v)(1 - beta2)          (moving average of squared gradients)
//   alpha = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
//   var -= alpha * m / (sqrt(v) + eps)    (Keras puts epsilon outside the bias correction)
// AdamW first decays the weights: var -= var * wd * lr.
class Adam : public Optimizer {
 public:
  Adam(const OptimizerConfig& c, const torch::Tensor& p)
      : Optimizer(c.effective_learning_rate()), b1_(c.beta1), b2_(c.beta2), eps_(c.epsilon),
        wd_(c.effective_weight_decay()), m_(torch::zeros_like(p)), v_(torch::zeros_like(p)) {}
  void step(torch::Tensor& p, const torch::Tensor& g) override {
    if (fusable(p, g, /*on_cpu_too=*/true)) return Optimizer::step(p, g);
    const double alpha = next_alpha();
    if (wd_ > 0) p.mul_(1.0 - wd_ * lr_);
    m_.lerp_(g, 1.0 - b1_);
    v_.mul_(b2_).addcmul_(g, g, 1.0 - b2_);
    p.addcdiv_(m_, v_.sqrt().add_(eps_), -alpha);
  }
  UpdateScalars next_update() override {
    const double alpha = next_alpha();
    return scalars(fused::kMoment,
                   {1.0 - b1_, b2_, 1.0 - b2_, 1.0, eps_, 0.0, -alpha, wd_ > 0 ? 1.0 - wd_ * lr_ : 1.0});
  }
  std::array<torch::Tensor, 2> update_slots() const override { return {m_, v_}; }
  std::vector<std::pair<std::string, torch::Tensor>> slots() const override {
    return {{"m", m_}, {"v", v_}};
  }

 private:
  // Advances the step count; the step's alpha.
  double next_alpha() {
    const double t = static_cast<double>(++iterations_);
    return lr_ * std::sqrt(1.0 - std::pow(b2_, t)) / (1.0 - std::pow(b1_, t));
  }
  double b1_, b2_, eps_, wd_;
  torch::Tensor m_, v_;
};

// Keras RMSprop: v = rho v + (1 - rho) g^2; update = lr g / (sqrt(v) + eps);
// with momentum: mom = momentum * mom + update; var -= mom; else var -= update.
class RmsProp : public Optimizer {
 public:
  RmsProp(const OptimizerConfig& c, const torch::Tensor& p)
      : Optimizer(c.effective_learning_rate()), rho_(c.rho), momentum_(c.momentum), eps_(c.epsilon),
        v_(torch::zeros_like(p)) {
    if (momentum_ > 0) mom_ = torch::zeros_like(p);
  }
  void step(torch::Tensor& p, const torch::Tensor& g) override {
    if (fusable(p, g, /*on_cpu_too=*/false)) return Optimizer::step(p, g);
    ++iterations_;
    v_.mul_(rho_).addcmul_(g, g, 1.0 - rho_);
    auto denom = v_.sqrt().add_(eps_);
    if (momentum_ > 0) {
      mom_.mul_(momentum_).addcdiv_(g, denom, lr_);
      p.sub_(mom_);
    } else {
      p.addcdiv_(g, denom, -lr_);
    }
  }
  UpdateScalars next_update() override {
    ++iterations_;
    return scalars(momentum_ > 0 ? fused::kRmsPropMomentum : fused::kRmsProp,
                   {rho_, 1.0 - rho_, eps_, -lr_, momentum_, lr_});
  }
  std::array<torch::Tensor, 2> update_slots() const override { return {v_, mom_}; }
  std::vector<std::pair<std::string, torch::Tensor>> slots() const override {
    std::vector<std::pair<std::string, torch::Tensor>> s = {{"velocity", v_}};
    if (mom_.defined()) s.emplace_back("momentum", mom_);
    return s;
  }

 private:
  double rho_, momentum_, eps_;
  torch::Tensor v_, mom_;
};

// Keras Nadam (Dozat 2016, with Keras' momentum schedule, decay 0.004):
//   u_t     = beta1 (1 - 0.5 * 0.96^(0.004 t)),  u_{t+1} likewise
//   prod_t  = prod_{t-1} * u_t,  prod_{t+1} = prod_t * u_{t+1}
//   m = m + (g - m)(1 - beta1);  v = v + (g^2 - v)(1 - beta2)
//   m_hat = u_{t+1} m / (1 - prod_{t+1}) + (1 - u_t) g / (1 - prod_t)
//   v_hat = v / (1 - beta2^t)
//   var -= lr m_hat / (sqrt(v_hat) + eps)
class Nadam : public Optimizer {
 public:
  Nadam(const OptimizerConfig& c, const torch::Tensor& p)
      : Optimizer(c.effective_learning_rate()), b1_(c.beta1), b2_(c.beta2), eps_(c.epsilon),
        m_(torch::zeros_like(p)), v_(torch::zeros_like(p)) {}
  void step(torch::Tensor& p, const torch::Tensor& g) override {
    if (fusable(p, g, /*on_cpu_too=*/true)) return Optimizer::step(p, g);
    const Schedule s = next_schedule();
    m_.lerp_(g, 1.0 - b1_);
    v_.mul_(b2_).addcmul_(g, g, 1.0 - b2_);
    // denom = sqrt(v / (1 - beta2^t)) + eps
    auto denom = v_.div(s.v_div).sqrt_().add_(eps_);
    p.addcdiv_(g, denom, s.a_g);
    p.addcdiv_(m_, denom, s.a_m);
  }
  UpdateScalars next_update() override {
    const Schedule s = next_schedule();
    return scalars(fused::kMoment, {1.0 - b1_, b2_, 1.0 - b2_, s.v_div, eps_, s.a_g, s.a_m, 1.0});
  }
  std::array<torch::Tensor, 2> update_slots() const override { return {m_, v_}; }
  std::vector<std::pair<std::string, torch::Tensor>> slots() const override {
    return {{"m", m_}, {"v", v_}, {"u_product", torch::tensor(u_product_, torch::kFloat64)}};
  }
  void load_slots(const std::vector<std::pair<std::string, torch::Tensor>>& saved, int64_t iterations) override {
    Optimizer::load_slots(saved, iterations);
    for (const auto& [name, t] : saved)
      if (name == "u_product") u_product_ = t.item<double>();
  }

 private:
  // The step's numbers: v's bias correction and the factors of g/d and m/d.
  struct Schedule {
    double v_div, a_g, a_m;
  };
  // Advances the step count and the momentum schedule's running product.
  Schedule next_schedule() {
    const double t = static_cast<double>(++iterations_);
    constexpr double kDecay = 0.004;
    const double u_t = b1_ * (1.0 - 0.5 * std::pow(0.96, kDecay * t));
    const double u_next = b1_ * (1.0 - 0.5 * std::pow(0.96, kDecay * (t + 1)));
    u_product_ *= u_t;
    const double u_product_next = u_product_ * u_next;
    return {1.0 - std::pow(b2_, t), -lr_ * (1.0 - u_t) / (1.0 - u_product_), -lr_ * u_next / (1.0 - u_product_next)};
  }
  double b1_, b2_, eps_;
  double u_product_ = 1.0;  // running product of the momentum schedule
  torch::Tensor m_, v_;
};
}  // namespace

std::unique_ptr<Optimizer> make_optimizer(const OptimizerConfig& config, const torch::Tensor& params) {
  config.validate();
  if (config.name == "sgd") return std::make_unique<Sgd>(config, params);
  if (config.name == "adam" || config.name == "adamw") return std::make_unique<Adam>(config, params);
  if (config.name == "rmsprop") return std::make_unique<RmsProp>(config, params);
  return std::make_unique<Nadam>(config, params);
}

}  // namespace mirror
