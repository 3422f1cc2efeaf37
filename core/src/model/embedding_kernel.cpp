#include "mirror/model/embedding_kernel.h"

#include <cstring>

namespace mirror {

namespace {
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// grad_weight[ids[n]] += grad[n] for every n, in the order of n (so repeated ids sum in a fixed
// order and runs stay bit-reproducible).
template <typename T>
void scatter_add_rows(const int64_t* ids, int64_t n, const T* grad, int64_t dim, T* grad_weight) {
  for (int64_t i = 0; i < n; ++i) {
    T* __restrict row = grad_weight + ids[i] * dim;
    const T* __restrict g = grad + i * dim;
    for (int64_t d = 0; d < dim; ++d) row[d] += g[d];
  }
}

class EmbeddingFunction : public torch::autograd::Function<EmbeddingFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& ids, const Tensor& weight) {
    torch::NoGradGuard no_grad;
    const Tensor flat = ids.reshape({-1}).to(torch::kInt64).contiguous();
    // index_select checks every id against the table's rows.
    Tensor rows = weight.index_select(0, flat);
    ctx->save_for_backward({flat});
    ctx->saved_data["rows"] = weight.size(0);
    auto shape = ids.sizes().vec();
    shape.push_back(weight.size(1));
    return rows.view(shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    torch::NoGradGuard no_grad;
    const Tensor flat = ctx->get_saved_variables()[0];
    const int64_t dim = grads[0].size(-1);
    const Tensor grad = grads[0].reshape({-1, dim}).contiguous();
    Tensor grad_weight = torch::zeros({ctx->saved_data["rows"].toInt(), dim}, grad.options());
    AT_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "embedding_backward", [&] {
      scatter_add_rows(flat.data_ptr<int64_t>(), flat.numel(), grad.data_ptr<scalar_t>(), dim,
                       grad_weight.data_ptr<scalar_t>());
    });
    return {Tensor(), grad_weight};
  }
};
}  // namespace

torch::Tensor embedding_lookup(const torch::Tensor& ids, const torch::Tensor& weight) {
  const bool cpu_float = ids.device().is_cpu() && weight.device().is_cpu() && weight.dim() == 2 &&
                         (weight.scalar_type() == torch::kFloat32 || weight.scalar_type() == torch::kFloat64) &&
                         !at::isFloatingType(ids.scalar_type()) && ids.scalar_type() != torch::kBool;
  if (!cpu_float) return torch::embedding(weight, ids);
  return EmbeddingFunction::apply(ids, weight);
}

}  // namespace mirror
