#pragma once
// One optimizer update as a single pass over a replica's flat buffers: the per-element arithmetic
// of every optimizer, written once and compiled twice, for the CPU (fused_update.cpp) and for
// CUDA (fused_update_cuda.cu). Each operation is one IEEE float operation in a fixed order, with
// no contraction into fused multiply-adds (C++20 without GNU extensions does not contract;
// the CUDA file is compiled with --fmad=false), and division and square root correctly rounded on
// both, so the CPU and a GPU give the same bits from the same inputs.
// Private to the optim floor; plain C++ (no torch), so that nvcc can compile it alone.

#include <cstdint>

#if defined(__CUDACC__)
#define MIRROR_HD __host__ __device__ __forceinline__
#else
#define MIRROR_HD inline
#endif

namespace mirror::fused {

// Which formula. The numbers of one step (UpdateScalars::values) mean, per kind:
enum Kind : int32_t {
  kSgd = 0,          // {-lr}
  kSgdMomentum = 1,  // {-lr, momentum}
  kSgdNesterov = 2,  // {-lr, momentum}
  kMoment = 3,       // Adam, AdamW, Nadam: {w1, b2, 1 - b2, v_div, eps, a_g, a_m, decay}
  kRmsProp = 4,      // {rho, 1 - rho, eps, -lr}
  kRmsPropMomentum = 5,  // {rho, 1 - rho, eps, -lr, momentum, lr}
};
constexpr int kValues = 8;

struct Values {
  float v[kValues];
};

// Keras SGD: p += -lr * g.
MIRROR_HD void sgd(const Values& k, float& p, float g) { p = p + k.v[0] * g; }

// Keras SGD with momentum: velocity = momentum * velocity - lr * g; p += velocity
// (Nesterov: p += momentum * velocity - lr * g, with the updated velocity).
MIRROR_HD void sgd_momentum(const Values& k, float& p, float g, float& velocity) {
  velocity = velocity * k.v[1] + k.v[0] * g;
  p = p + velocity;
}
MIRROR_HD void sgd_nesterov(const Values& k, float& p, float g, float& velocity) {
  velocity = velocity * k.v[1] + k.v[0] * g;
  p = (p + k.v[1] * velocity) + k.v[0] * g;
}

// Adam, AdamW and Nadam as one formula: m <- lerp(m, g, w1) (LibTorch's lerp, which rounds
// differently on either side of w1 = 0.5); v <- b2 v + (1 - b2) g^2; d = sqrt(v / v_div) + eps;
// p <- p decay + a_g g / d + a_m m / d. Adam: v_div 1, a_g 0, its bias correction in a_m; AdamW:
// decay 1 - wd lr; Nadam: v_div 1 - b2^t, a_g and a_m its momentum schedule's two terms.
MIRROR_HD void moment(const Values& k, float& p, float g, float& m, float& v) {
  const float w1 = k.v[0];
  const float mi = w1 < 0.5f ? m + w1 * (g - m) : g - (g - m) * (1.0f - w1);
  const float vi = v * k.v[1] + k.v[2] * g * g;
  const float d = sqrtf(vi / k.v[3]) + k.v[4];
  const float pi = p * k.v[7] + k.v[5] * (g / d);
  p = pi + k.v[6] * (mi / d);
  m = mi;
  v = vi;
}

// Keras RMSprop: v = rho v + (1 - rho) g^2; update = lr g / (sqrt(v) + eps); p -= update
// (with momentum: mom = momentum mom + update; p -= mom).
MIRROR_HD void rmsprop(const Values& k, float& p, float g, float& v) {
  v = v * k.v[0] + k.v[1] * g * g;
  p = p + k.v[3] * (g / (sqrtf(v) + k.v[2]));
}
MIRROR_HD void rmsprop_momentum(const Values& k, float& p, float g, float& v, float& mom) {
  v = v * k.v[0] + k.v[1] * g * g;
  mom = mom * k.v[4] + k.v[5] * (g / (sqrtf(v) + k.v[2]));
  p = p - mom;
}

// Applies element i of the update of `kind` (a and b: the kind's slots in the order above).
MIRROR_HD void update_element(int32_t kind, const Values& k, float* p, const float* g, float* a, float* b,
                              int64_t i) {
  switch (kind) {
    case kSgd: sgd(k, p[i], g[i]); break;
    case kSgdMomentum: sgd_momentum(k, p[i], g[i], a[i]); break;
    case kSgdNesterov: sgd_nesterov(k, p[i], g[i], a[i]); break;
    case kMoment: moment(k, p[i], g[i], a[i], b[i]); break;
    case kRmsProp: rmsprop(k, p[i], g[i], a[i]); break;
    case kRmsPropMomentum: rmsprop_momentum(k, p[i], g[i], a[i], b[i]); break;
    default: break;
  }
}

// The update over n elements on the CPU, split over LibTorch's intra-op threads (fused_update.cpp).
void update_cpu(int32_t kind, const Values& k, float* p, const float* g, float* a, float* b, int64_t n);

// The update over n elements of device memory, enqueued on `stream` (a cudaStream_t) of the
// current device. The numbers come from `k_device` (device memory, read when the kernel runs: a
// captured CUDA graph reads each replay's numbers there) or, when it is null, from `k` (copied
// into the launch). Returns null, or CUDA's message when the launch failed. Only in builds with a
// CUDA LibTorch (fused_update_cuda.cu).
const char* update_cuda(int32_t kind, const Values& k, const float* k_device, float* p, const float* g, float* a,
                        float* b, int64_t n, void* stream);

}  // namespace mirror::fused
