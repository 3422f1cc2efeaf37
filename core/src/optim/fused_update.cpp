// The fused updates on the CPU: one pass over the flat buffers, split over LibTorch's intra-op
// threads; one loop per kind, each a function of its own so that the restrict-qualified pointers
// and the by-value numbers let the compiler vectorise it.
#include "fused_update.h"

#include <ATen/Parallel.h>

namespace mirror::fused {

namespace {
template <typename F>
void for_each_span(int64_t n, F&& f) {
  constexpr int64_t kGrain = 32768;
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) { f(begin, end); });
}

void sgd_span(Values k, float* __restrict p, const float* __restrict g, int64_t n) {
  for (int64_t i = 0; i < n; ++i) sgd(k, p[i], g[i]);
}
void sgd_momentum_span(Values k, float* __restrict p, const float* __restrict g, float* __restrict a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) sgd_momentum(k, p[i], g[i], a[i]);
}
void sgd_nesterov_span(Values k, float* __restrict p, const float* __restrict g, float* __restrict a, int64_t n) {
  for (int64_t i = 0; i < n; ++i) sgd_nesterov(k, p[i], g[i], a[i]);
}
void moment_span(Values k, float* __restrict p, const float* __restrict g, float* __restrict m,
                 float* __restrict v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) moment(k, p[i], g[i], m[i], v[i]);
}
void rmsprop_span(Values k, float* __restrict p, const float* __restrict g, float* __restrict v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) rmsprop(k, p[i], g[i], v[i]);
}
void rmsprop_momentum_span(Values k, float* __restrict p, const float* __restrict g, float* __restrict v,
                           float* __restrict mom, int64_t n) {
  for (int64_t i = 0; i < n; ++i) rmsprop_momentum(k, p[i], g[i], v[i], mom[i]);
}
}  // namespace

void update_cpu(int32_t kind, const Values& k, float* p, const float* g, float* a, float* b, int64_t n) {
  for_each_span(n, [&](int64_t begin, int64_t end) {
    const int64_t len = end - begin;
    switch (kind) {
      case kSgd: sgd_span(k, p + begin, g + begin, len); break;
      case kSgdMomentum: sgd_momentum_span(k, p + begin, g + begin, a + begin, len); break;
      case kSgdNesterov: sgd_nesterov_span(k, p + begin, g + begin, a + begin, len); break;
      case kMoment: moment_span(k, p + begin, g + begin, a + begin, b + begin, len); break;
      case kRmsProp: rmsprop_span(k, p + begin, g + begin, a + begin, len); break;
      case kRmsPropMomentum: rmsprop_momentum_span(k, p + begin, g + begin, a + begin, b + begin, len); break;
      default: break;
    }
  });
}

}  // namespace mirror::fused
