#include "mirror/model/conv_kernels.h"

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join (its own header in the fmt that PyPI's LibTorch carries)

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "bf16_storage.h"
#include "mirror/model/cpu_gemm.h"

namespace mirror {

namespace {
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// At and above this many input channels the convolution is K GEMMs over the sequence as it lies
// in memory (the window at step t+k is rows t+k of the (B·steps, C) matrix, so no copy); below it
// the GEMMs' inner dimension is too small to run well and one GEMM over copied windows (im2col)
// wins. Measured on the tutorial's two convolutions (7 and 64 channels in, batch 32 and 256).
constexpr int64_t kShiftedGemmChannels = 32;

// A (B, rows, C) buffer of which each batch's first `steps` rows are read, `batch_rows` apart.
struct Rows {
  int64_t batch, steps, batch_rows, channels;
};

int64_t pooled_steps(int64_t steps, int64_t pool, int64_t stride) { return (steps - pool) / stride + 1; }

using bf16::add_to;  // bfloat16 as 16 bits, compared widened (bf16_storage.h)
using bf16::bits;
using bf16::key;

// out[b, j, c] = max over the window of y (first of equals; NaN wins), then ReLU if asked.
template <typename T>
void pool_forward(const T* y, const Rows& in, int64_t pool, int64_t stride, bool relu, T* out) {
  const T zero(0);
  const int64_t C = in.channels;
  const int64_t n = pooled_steps(in.steps, pool, stride);
  at::parallel_for(0, in.batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t j = 0; j < n; ++j) {
        const T* w = y + (b * in.batch_rows + j * stride) * C;
        T* o = out + (b * n + j) * C;
        std::memcpy(o, w, static_cast<size_t>(C) * sizeof(T));
        for (int64_t i = 1; i < pool; ++i) {
          const T* r = w + i * C;
          for (int64_t c = 0; c < C; ++c) {
            const auto kr = key(r[c]), ko = key(o[c]);
            o[c] = (kr > ko || kr != kr) ? r[c] : o[c];
          }
        }
        if (relu)
          for (int64_t c = 0; c < C; ++c) {
            const auto ko = key(o[c]);
            o[c] = (ko > 0 || ko != ko) ? o[c] : zero;
          }
      }
  });
}

// One window's gradient, channel by channel: it goes to the first element equal to the output
// (NaN to the first NaN), nowhere if a ReLU cut the output. Branch-free so that it vectorises.
template <typename T>
void window_backward(const T* __restrict y, int64_t pool, int64_t C, bool relu, bool accumulate,
                     const T* __restrict o, const T* __restrict go, T* __restrict left, T* __restrict gy) {
  const T zero(0);
  for (int64_t c = 0; c < C; ++c) left[c] = (relu && key(o[c]) <= 0) ? zero : go[c];
  for (int64_t i = 0; i < pool; ++i) {
    const T* __restrict r = y + i * C;
    T* __restrict g = gy + i * C;
    if (accumulate) {
      for (int64_t c = 0; c < C; ++c) {
        const auto kr = key(r[c]), ko = key(o[c]);
        const bool hit = (kr == ko) | ((kr != kr) & (ko != ko));
        add_to(g[c], hit ? left[c] : zero);
        left[c] = hit ? zero : left[c];
      }
    } else {
      for (int64_t c = 0; c < C; ++c) {
        const auto kr = key(r[c]), ko = key(o[c]);
        const bool hit = (kr == ko) | ((kr != kr) & (ko != ko));
        g[c] = hit ? left[c] : zero;
        left[c] = hit ? zero : left[c];
      }
    }
  }
}

// The gradient of pool_forward, found again from y (no indices were kept). gy has y's layout;
// every element of it is written.
template <typename T>
void pool_backward(const T* y, const Rows& in, int64_t pool, int64_t stride, bool relu, const T* out,
                   const T* gout, T* gy) {
  const int64_t C = in.channels;
  const int64_t n = pooled_steps(in.steps, pool, stride);
  const bool tiles = stride == pool;  // the windows cover each row once: write, don't accumulate
  at::parallel_for(0, in.batch, 1, [&](int64_t b0, int64_t b1) {
    std::vector<T> left(static_cast<size_t>(C));
    for (int64_t b = b0; b < b1; ++b) {
      T* gb = gy + b * in.batch_rows * C;
      const int64_t first_unwritten = tiles ? n * pool : 0;
      std::fill(gb + first_unwritten * C, gb + in.batch_rows * C, T(0));  // bfloat16 0 is all zero bits
      for (int64_t j = 0; j < n; ++j) {
        const int64_t row0 = b * in.batch_rows + j * stride;
        window_backward(y + row0 * C, pool, C, relu, !tiles, out + (b * n + j) * C, gout + (b * n + j) * C,
                        left.data(), gy + row0 * C);
      }
    }
  });
}

// cols[b·steps_out + t, k·C + c] = x[b, t·stride + k − pad_begin, c], zero outside the sequence.
template <typename T>
void im2col(const T* x, int64_t batch, int64_t steps, int64_t C, const Conv1dBlock& k, int64_t steps_out, T* cols) {
  const int64_t width = k.kernel * C;
  at::parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b)
      for (int64_t t = 0; t < steps_out; ++t) {
        T* dst = cols + (b * steps_out + t) * width;
        const int64_t s0 = t * k.stride - k.pad_begin;
        if (s0 >= 0 && s0 + k.kernel <= steps) {  // the whole window is inside: one run of memory
          std::memcpy(dst, x + (b * steps + s0) * C, static_cast<size_t>(width) * sizeof(T));
          continue;
        }
        for (int64_t i = 0; i < k.kernel; ++i) {
          const int64_t s = s0 + i;
          if (s < 0 || s >= steps) std::fill(dst + i * C, dst + (i + 1) * C, T(0));
          else std::memcpy(dst + i * C, x + (b * steps + s) * C, static_cast<size_t>(C) * sizeof(T));
        }
      }
  });
}

// The adjoint of im2col: gx[b, s, c] = sum of the window elements that read x[b, s, c]. A
// bfloat16 sum is taken in float32 and rounded once, as a GEMM's would be.
template <typename T>
void col2im(const T* cols, int64_t batch, int64_t steps, int64_t C, const Conv1dBlock& k, int64_t steps_out, T* gx) {
  using Acc = std::conditional_t<std::is_same_v<T, c10::BFloat16>, float, T>;
  const int64_t width = k.kernel * C;
  at::parallel_for(0, batch, 1, [&](int64_t b0, int64_t b1) {
    std::vector<Acc> scratch(std::is_same_v<Acc, T> ? 0 : static_cast<size_t>(steps * C));
    for (int64_t b = b0; b < b1; ++b) {
      Acc* g = nullptr;
      if constexpr (std::is_same_v<Acc, T>) g = gx + b * steps * C;
      else g = scratch.data();
      std::fill(g, g + steps * C, Acc(0));
      for (int64_t t = 0; t < steps_out; ++t) {
        const T* src = cols + (b * steps_out + t) * width;
        const int64_t s0 = t * k.stride - k.pad_begin;
        if (s0 >= 0 && s0 + k.kernel <= steps) {
          Acc* d = g + s0 * C;
          for (int64_t e = 0; e < width; ++e) d[e] += key(src[e]);
          continue;
        }
        for (int64_t i = 0; i < k.kernel; ++i) {
          const int64_t s = s0 + i;
          if (s < 0 || s >= steps) continue;
          for (int64_t c = 0; c < C; ++c) g[s * C + c] += key(src[i * C + c]);
        }
      }
      if constexpr (!std::is_same_v<Acc, T>)
        for (int64_t e = 0; e < steps * C; ++e) gx[b * steps * C + e] = T(g[e]);
    }
  });
}

// float32 and float64, and bfloat16 (mixed-bf16: the products in oneDNN's bfloat16 GEMM through
// LibTorch, the pooling in bfloat16 as the layer's output is).
bool fast_path(const Tensor& x) {
  const auto t = x.scalar_type();
  return x.device().is_cpu() && (t == torch::kFloat32 || t == torch::kFloat64 || t == torch::kBFloat16);
}

// The same block from LibTorch's own operations, channels first in between: what runs on a GPU.
Tensor conv1d_block_libtorch(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv1dBlock& k) {
  namespace F = torch::nn::functional;
  auto h = x.permute({0, 2, 1});
  if (k.pad_begin > 0 || k.pad_end > 0) h = F::pad(h, F::PadFuncOptions({k.pad_begin, k.pad_end}));
  h = F::conv1d(h, weight, F::Conv1dFuncOptions().bias(bias).stride(k.stride));
  if (k.relu) h = torch::relu(h);
  if (k.pool > 1) h = F::max_pool1d(h, F::MaxPool1dFuncOptions(k.pool).stride(k.pool_stride));
  return h.permute({0, 2, 1}).contiguous();
}

void check_shapes(const Tensor& x, const Tensor& weight, const Tensor& bias, const Conv1dBlock& k) {
  if (x.dim() != 3) throw std::invalid_argument(fmt::format("conv1d_block: input has {} axes, wants 3", x.dim()));
  if (weight.dim() != 3 || weight.size(1) != x.size(2) || weight.size(2) != k.kernel)
    throw std::invalid_argument(fmt::format("conv1d_block: weight {} does not fit {} input channels and kernel {}",
                                            fmt::join(weight.sizes(), "x"), x.size(2), k.kernel));
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != weight.size(0)))
    throw std::invalid_argument("conv1d_block: bias does not fit the weight's output channels");
  if (k.stride < 1 || k.pool < 1 || k.pool_stride < 1 || k.pad_begin < 0 || k.pad_end < 0)
    throw std::invalid_argument("conv1d_block: strides and windows must be >= 1, padding >= 0");
  if (k.conv_steps(x.size(1)) < 1 || k.out_steps(x.size(1)) < 1)
    throw std::invalid_argument(fmt::format("conv1d_block: {} steps are too few for kernel {} and pool {}",
                                            x.size(1), k.kernel, k.pool));
}

Conv1dBlock block_from(AutogradContext* ctx) {
  Conv1dBlock k;
  const auto v = ctx->saved_data["block"].toIntVector();
  k.kernel = v[0];
  k.stride = v[1];
  k.pad_begin = v[2];
  k.pad_end = v[3];
  k.relu = v[4] != 0;
  k.pool = v[5];
  k.pool_stride = v[6];
  return k;
}

// Forward: the convolution into y (rows per batch `batch_rows`), then pooling/ReLU into out.
// Backward: pooling's gradient into gy (y's layout), then the convolution's three gradients.
class Conv1dBlockFunction : public torch::autograd::Function<Conv1dBlockFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x_in, const Tensor& weight,
                        const c10::optional<Tensor>& bias_or_none, const Conv1dBlock& k) {
    torch::NoGradGuard no_grad;
    const Tensor bias = bias_or_none.value_or(Tensor());
    const Tensor x = x_in.contiguous();
    const int64_t B = x.size(0), steps = x.size(1), C = x.size(2), out_c = weight.size(0);
    const int64_t conv_steps = k.conv_steps(steps);
    // (K, C, out_c): tap k's (C, out_c) matrix is a contiguous block.
    const Tensor taps = weight.permute({2, 1, 0}).contiguous();
    // In bfloat16 the shifted GEMMs round each tap's sum into y (K+1 roundings where one GEMM over
    // the windows rounds once, ~sqrt(K)·2^-9 relative): kept for the window copy it saves.
    const bool shifted = k.stride == 1 && k.pad_begin == 0 && k.pad_end == 0 && C >= kShiftedGemmChannels;
    Tensor y, cols;
    int64_t batch_rows = 0;
    if (shifted) {
      // Row r of the result is step r of the flattened batch; rows past a sequence's valid steps
      // mix two sequences and are never read.
      batch_rows = steps;
      const Tensor x2 = x.view({B * steps, C});
      const int64_t R = B * steps - k.kernel + 1;
      y = torch::empty({B * steps, out_c}, x.options());
      Tensor yr = y.narrow(0, 0, R);
      if (bias.defined()) yr.copy_(bias.expand({R, out_c}));
      for (int64_t i = 0; i < k.kernel; ++i) cpu_gemm::mm_into(yr, x2.narrow(0, i, R), taps[i], bias.defined() || i > 0);
    } else {
      batch_rows = conv_steps;
      cols = torch::empty({B * conv_steps, k.kernel * C}, x.options());
      AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "im2col", [&] {
        im2col(x.data_ptr<scalar_t>(), B, steps, C, k, conv_steps, cols.data_ptr<scalar_t>());
      });
      const Tensor w = taps.view({k.kernel * C, out_c});
      y = torch::empty({B * conv_steps, out_c}, x.options());
      if (bias.defined()) y.copy_(bias.expand({B * conv_steps, out_c}));
      cpu_gemm::mm_into(y, cols, w, bias.defined());
    }
    const int64_t out_steps = k.out_steps(steps);
    Tensor out = torch::empty({B, out_steps, out_c}, x.options());
    const Rows rows{B, conv_steps, batch_rows, out_c};
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "pool_forward", [&] {
      pool_forward(bits(y.data_ptr<scalar_t>()), rows, k.pool, k.pool == 1 ? 1 : k.pool_stride, k.relu,
                   bits(out.data_ptr<scalar_t>()));
    });
    ctx->saved_data["block"] = std::vector<int64_t>{k.kernel, k.stride, k.pad_begin, k.pad_end, k.relu ? 1 : 0,
                                                    k.pool, k.pool_stride};
    ctx->saved_data["batch_rows"] = batch_rows;
    ctx->saved_data["shifted"] = shifted;
    ctx->saved_data["has_bias"] = bias.defined();
    ctx->save_for_backward({x, taps, y, out, cols});
    return out;
  }

  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    torch::NoGradGuard no_grad;
    const Conv1dBlock k = block_from(ctx);
    const auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &taps = saved[1], &y = saved[2], &out = saved[3], &cols = saved[4];
    const Tensor gout = grads[0].contiguous();
    const int64_t B = x.size(0), steps = x.size(1), C = x.size(2), out_c = taps.size(2);
    const int64_t batch_rows = ctx->saved_data["batch_rows"].toInt();
    const bool shifted = ctx->saved_data["shifted"].toBool();
    Tensor gy = torch::empty_like(y);
    const Rows rows{B, k.conv_steps(steps), batch_rows, out_c};
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "pool_backward", [&] {
      pool_backward(bits(y.data_ptr<scalar_t>()), rows, k.pool, k.pool == 1 ? 1 : k.pool_stride, k.relu,
                    bits(out.data_ptr<scalar_t>()), bits(gout.data_ptr<scalar_t>()), bits(gy.data_ptr<scalar_t>()));
    });
    Tensor gx, gtaps;
    const bool want_x = ctx->needs_input_grad(0);
    if (shifted) {
      const Tensor x2 = x.view({B * steps, C});
      const int64_t R = B * steps - k.kernel + 1;
      const Tensor gyr = gy.narrow(0, 0, R);
      gtaps = torch::empty_like(taps);
      for (int64_t i = 0; i < k.kernel; ++i) {
        Tensor gt = gtaps[i];
        cpu_gemm::mm_into(gt, x2.narrow(0, i, R).t(), gyr, false);
      }
      if (want_x) {
        gx = torch::zeros({B * steps, C}, x.options());
        for (int64_t i = 0; i < k.kernel; ++i) {
          Tensor gxi = gx.narrow(0, i, R);
          cpu_gemm::mm_into(gxi, gyr, taps[i].t(), true);
        }
        gx = gx.view({B, steps, C});
      }
    } else {
      const Tensor w = taps.view({k.kernel * C, out_c});
      gtaps = torch::empty({k.kernel * C, out_c}, x.options());
      cpu_gemm::mm_into(gtaps, cols.t(), gy, false);
      gtaps = gtaps.view({k.kernel, C, out_c});
      if (want_x) {
        Tensor gcols = torch::empty({B * k.conv_steps(steps), k.kernel * C}, x.options());
        cpu_gemm::mm_into(gcols, gy, w.t(), false);
        gx = torch::empty({B, steps, C}, x.options());
        AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "col2im", [&] {
          col2im(gcols.data_ptr<scalar_t>(), B, steps, C, k, k.conv_steps(steps), gx.data_ptr<scalar_t>());
        });
      }
    }
    Tensor gbias;
    if (ctx->saved_data["has_bias"].toBool()) gbias = gy.sum(0);
    return {gx, gtaps.permute({2, 1, 0}).contiguous(), gbias, Tensor()};
  }
};

class MaxPool1dFunction : public torch::autograd::Function<MaxPool1dFunction> {
 public:
  static Tensor forward(AutogradContext* ctx, const Tensor& x_in, int64_t pool, int64_t stride, bool relu) {
    torch::NoGradGuard no_grad;
    const Tensor x = x_in.contiguous();
    const Rows rows{x.size(0), x.size(1), x.size(1), x.size(2)};
    Tensor out = torch::empty({rows.batch, pooled_steps(rows.steps, pool, stride), rows.channels}, x.options());
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "pool_forward", [&] {
      pool_forward(bits(x.data_ptr<scalar_t>()), rows, pool, stride, relu, bits(out.data_ptr<scalar_t>()));
    });
    ctx->saved_data["pool"] = std::vector<int64_t>{pool, stride, relu ? 1 : 0};
    ctx->save_for_backward({x, out});
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &out = saved[1];
    const auto p = ctx->saved_data["pool"].toIntVector();
    const Tensor gout = grads[0].contiguous();
    const Rows rows{x.size(0), x.size(1), x.size(1), x.size(2)};
    Tensor gx = torch::empty_like(x);
    AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "pool_backward", [&] {
      pool_backward(bits(x.data_ptr<scalar_t>()), rows, p[0], p[1], p[2] != 0, bits(out.data_ptr<scalar_t>()),
                    bits(gout.data_ptr<scalar_t>()), bits(gx.data_ptr<scalar_t>()));
    });
    return {gx, Tensor(), Tensor(), Tensor()};
  }
};
}  // namespace

torch::Tensor conv1d_block(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias,
                           const Conv1dBlock& block) {
  check_shapes(x, weight, bias, block);
  if (!fast_path(x) || weight.scalar_type() != x.scalar_type()) return conv1d_block_libtorch(x, weight, bias, block);
  return Conv1dBlockFunction::apply(x, weight, bias.defined() ? c10::optional<torch::Tensor>(bias) : c10::nullopt,
                                    block);
}

torch::Tensor max_pool1d_channels_last(const torch::Tensor& x, int64_t pool, int64_t stride, bool relu) {
  if (x.dim() != 3 || pool < 1 || stride < 1 || x.size(1) < pool)
    throw std::invalid_argument(fmt::format("max_pool1d_channels_last: cannot pool {} steps by {}",
                                            x.dim() == 3 ? x.size(1) : 0, pool));
  if (!fast_path(x)) {
    namespace F = torch::nn::functional;
    auto h = x.permute({0, 2, 1});
    if (relu) h = torch::relu(h);
    return F::max_pool1d(h, F::MaxPool1dFuncOptions(pool).stride(stride)).permute({0, 2, 1}).contiguous();
  }
  return MaxPool1dFunction::apply(x, pool, stride, relu);
}

}  // namespace mirror
