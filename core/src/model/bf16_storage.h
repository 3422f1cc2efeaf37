#pragma once
// How the CPU kernels move and compare bfloat16 without c10::BFloat16's operators (private to
// core/src/model). Tested through tests/core/model/test_precision.cpp's kernel tests.

#include <c10/util/BFloat16.h>

#include <cstdint>
#include <cstring>

namespace mirror::bf16 {

// Pooling moves a bfloat16 as its 16 bits (a plain uint16_t, which the compiler vectorises where
// c10::BFloat16's class does not) and compares it widened by a shift; max and ReLU only select
// values, so nothing is rounded back but an accumulated gradient (add_to).
template <typename T>
struct Storage {
  using type = T;
};
template <>
struct Storage<c10::BFloat16> {
  using type = uint16_t;
};
template <typename T>
typename Storage<T>::type* bits(T* p) {
  return reinterpret_cast<typename Storage<T>::type*>(p);
}
template <typename T>
const typename Storage<T>::type* bits(const T* p) {
  return reinterpret_cast<const typename Storage<T>::type*>(p);
}

inline float key(float v) { return v; }
inline double key(double v) { return v; }
inline float key(uint16_t v) {
  const uint32_t widened = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &widened, sizeof f);
  return f;
}
inline float key(c10::BFloat16 v) { return key(v.x); }

inline void add_to(float& g, float v) { g += v; }
inline void add_to(double& g, double v) { g += v; }
inline void add_to(uint16_t& g, uint16_t v) { g = c10::BFloat16(key(g) + key(v)).x; }

}  // namespace mirror::bf16
