// Tested by tests/core/model/test_precision.cpp (names, the CPU check against /proc/cpuinfo's flags,
// and a mixed-bf16 model against its float32 self).
#include "mirror/model/precision.h"

#include <ATen/Context.h>
#include <fmt/format.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

std::string precision_name(Precision p) { return p == Precision::kMixedBf16 ? "mixed-bf16" : "float32"; }

Precision parse_precision(const std::string& name) {
  if (name == "float32") return Precision::kFloat32;
  if (name == "mixed-bf16") return Precision::kMixedBf16;
  // A config file's text: escaped, so a line break in it cannot start a line of its own.
  throw ConfigError(fmt::format("precision '{}' is not known: use float32 or mixed-bf16", terminal_text(name)));
}

namespace {
// AVX512_BF16 (CPUID leaf 7 subleaf 1, EAX bit 5) or AMX-BF16 (leaf 7 subleaf 0, EDX bit 22),
// and the operating system saving the AVX-512 registers (XCR0 bits 5-7, with 1-2 for SSE/AVX).
bool cpu_has_bf16_instructions() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return false;  // OSXSAVE
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0xE6u) != 0xE6u) return false;
  __cpuid_count(7, 0, a, b, c, d);
  const bool amx_bf16 = d & (1u << 22);
  const bool avx512f = b & (1u << 16);
  __cpuid_count(7, 1, a, b, c, d);
  const bool avx512_bf16 = a & (1u << 5);
  return amx_bf16 || (avx512f && avx512_bf16);
#else
  return false;
#endif
}
}  // namespace

std::string cpu_bf16_unsupported() {
  if (!cpu_has_bf16_instructions())
    return "this CPU has neither AVX512_BF16 nor AMX-BF16 instructions, so bfloat16 products would be emulated "
           "and slower than float32: train in float32 here, or on a GPU of compute capability 8.0 or newer";
  if (!at::hasMKLDNN())
    return "this LibTorch was built without oneDNN, which computes its bfloat16 products: train in float32, or "
           "build against a LibTorch with oneDNN (Debian's libtorch-dev and PyPI's torch both have it)";
  return {};
}

std::string gpu_bf16_unsupported(const std::string& gpu_name, int compute_major, int compute_minor) {
  if (compute_major >= 8) return {};
  return fmt::format("{} (compute capability {}.{}) has no bfloat16 arithmetic; mixed-bf16 needs 8.0 (Ampere) "
                     "or newer: train in float32 there",
                     gpu_name, compute_major, compute_minor);
}

}  // namespace mirror
