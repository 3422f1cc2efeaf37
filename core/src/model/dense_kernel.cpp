#include "mirror/model/dense_kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (its own header in the fmt that PyPI's LibTorch carries)

#include <stdexcept>

#include "mirror/model/cpu_gemm.h"

namespace mirror {

namespace {
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

class DenseFunction : public torch::autograd::Function<DenseFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x, const Tensor& weight,
                        const c10::optional<Tensor>& bias_or_none) {
    torch::NoGradGuard no_grad;
    const Tensor bias = bias_or_none.value_or(Tensor());
    const int64_t in = weight.size(1), out = weight.size(0);
    const Tensor x2 = x.reshape({-1, in});
    Tensor y = torch::empty({x2.size(0), out}, x.options());
    if (bias.defined()) y.copy_(bias.expand({x2.size(0), out}));
    cpu_gemm::mm_into(y, x2, weight.t(), bias.defined());
    ctx->saved_data["has_bias"] = bias.defined();
    ctx->save_for_backward({x2, weight});
    auto shape = x.sizes().vec();
    shape.back() = out;
    return y.view(shape);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    torch::NoGradGuard no_grad;
    const auto saved = ctx->get_saved_variables();
    const Tensor &x2 = saved[0], &weight = saved[1];
    const Tensor gy = grads[0].reshape({-1, weight.size(0)});
    // dL/dW = gyᵀ · x; dL/db = the column sums of gy; dL/dx = gy · W.
    Tensor gweight = torch::empty_like(weight);
    cpu_gemm::mm_into(gweight, gy.t(), x2, false);
    Tensor gbias = ctx->saved_data["has_bias"].toBool() ? gy.sum(0) : Tensor();
    Tensor gx;
    if (ctx->needs_input_grad(0)) {
      gx = torch::empty_like(x2);
      cpu_gemm::mm_into(gx, gy, weight, false);
      auto shape = grads[0].sizes().vec();
      shape.back() = weight.size(1);
      gx = gx.view(shape);
    }
    return {gx, gweight, gbias};
  }
};
}  // namespace

torch::Tensor dense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (x.dim() < 1 || weight.dim() != 2 || x.size(-1) != weight.size(1))
    throw std::invalid_argument(fmt::format("dense: input of {} features does not fit weight {}",
                                            x.dim() < 1 ? 0 : x.size(-1), fmt::join(weight.sizes(), "x")));
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0)))
    throw std::invalid_argument("dense: bias does not fit the weight's output features");
  const auto t = x.scalar_type();  // bfloat16: mixed-bf16's products (LibTorch's oneDNN GEMM)
  const bool cpu_float = x.device().is_cpu() && weight.device().is_cpu() && t == weight.scalar_type() &&
                         (t == torch::kFloat32 || t == torch::kFloat64 || t == torch::kBFloat16);
  if (!cpu_float) return torch::nn::functional::linear(x, weight, bias);
  return DenseFunction::apply(x, weight, bias.defined() ? c10::optional<torch::Tensor>(bias) : c10::nullopt);
}

}  // namespace mirror
