#include "mirror/model/cpu_gemm.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#ifdef MIRROR_WITH_DNNL
#include <oneapi/dnnl/dnnl.h>
#endif

namespace mirror::cpu_gemm {

namespace {
#ifdef MIRROR_WITH_DNNL
// A row-major operand as dnnl_sgemm reads it: 'N' with rows `ld` apart, or 'T' (stored
// transposed) with columns `ld` apart. False when neither stride is 1.
bool as_operand(const torch::Tensor& m, char& trans, int64_t& ld) {
  const int64_t rows = m.size(0), cols = m.size(1);
  if (m.stride(1) == 1 && m.stride(0) >= std::max<int64_t>(cols, 1)) {
    trans = 'N';
    ld = m.stride(0);
    return true;
  }
  if (m.stride(0) == 1 && m.stride(1) >= std::max<int64_t>(rows, 1)) {
    trans = 'T';
    ld = m.stride(1);
    return true;
  }
  return false;
}

void dnnl_check(dnnl_status_t status, const char* what) {
  if (status != dnnl_success) throw std::runtime_error(fmt::format("oneDNN {} failed (status {})", what, static_cast<int>(status)));
}
#endif
}  // namespace

void mm_into(torch::Tensor& out, const torch::Tensor& a, const torch::Tensor& b, bool accumulate) {
  TORCH_CHECK(a.dim() == 2 && b.dim() == 2 && out.dim() == 2 && a.size(1) == b.size(0) &&
                  out.size(0) == a.size(0) && out.size(1) == b.size(1),
              "cpu_gemm::mm_into: shapes ", a.sizes(), " x ", b.sizes(), " into ", out.sizes());
  const int64_t M = a.size(0), N = b.size(1), K = a.size(1);
  if (M == 0 || N == 0) return;
  if (K == 0) {
    if (!accumulate) out.zero_();
    return;
  }
#ifdef MIRROR_WITH_DNNL
  char ta = 'N', tb = 'N';
  int64_t lda = 0, ldb = 0;
  if (out.scalar_type() == torch::kFloat32 && a.scalar_type() == torch::kFloat32 &&
      b.scalar_type() == torch::kFloat32 && out.stride(1) == 1 && out.stride(0) >= N) {
    torch::Tensor ac = a, bc = b;
    if (!as_operand(ac, ta, lda)) as_operand(ac = a.contiguous(), ta, lda);
    if (!as_operand(bc, tb, ldb)) as_operand(bc = b.contiguous(), tb, ldb);
    dnnl_check(dnnl_sgemm(ta, tb, M, N, K, 1.0f, ac.data_ptr<float>(), lda, bc.data_ptr<float>(), ldb,
                          accumulate ? 1.0f : 0.0f, out.data_ptr<float>(), out.stride(0)),
               "sgemm");
    return;
  }
#endif
  if (accumulate) out.addmm_(a, b);
  else at::mm_out(out, a, b);
}

std::string library() {
#ifdef MIRROR_WITH_DNNL
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("oneDNN {}.{}.{}", v->major, v->minor, v->patch);
#else
  return "LibTorch mm (BLAS)";
#endif
}

}  // namespace mirror::cpu_gemm
