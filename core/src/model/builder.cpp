#include "mirror/model/builder.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>
#include <torch/torch.h>

#include "mirror/model/conv_kernels.h"
#include "mirror/model/dense_kernel.h"
#include "mirror/model/embedding_kernel.h"
#include "mirror/model/lowering.h"
#include "mirror/model/precision.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
// The dtype a layer computes in: bfloat16 under mixed-bf16 (its input and a bfloat16 copy of its
// weights, cast in the autograd graph, so that the gradients reach the float32 weights as float32).
using Compute = c10::optional<torch::ScalarType>;

torch::Tensor in_compute(const torch::Tensor& t, const Compute& compute) {
  if (!compute || !t.defined() || !t.is_floating_point() || t.scalar_type() == *compute) return t;
  return t.to(*compute);
}

// Back to float32 from a reduced-precision compute dtype: the softmax, the loss and what the
// model returns (Keras' mixed policy leaves the output layer's softmax in float32 too).
torch::Tensor float_up(const torch::Tensor& t) {
  return t.scalar_type() == torch::kBFloat16 || t.scalar_type() == torch::kHalf ? t.to(torch::kFloat32) : t;
}

// Dropout that draws its mask from a given generator, so that each replica has its own stream
// and a run is reproducible however threads interleave.
class ReplicaDropoutImpl : public torch::nn::Module {
 public:
  ReplicaDropoutImpl(double rate, c10::optional<at::Generator> generator)
      : rate_(rate), generator_(std::move(generator)) {}
  torch::Tensor forward(torch::Tensor x) {
    if (!is_training() || rate_ == 0.0) return x;
    // Inverted dropout: keep with probability 1 - rate and scale the kept values up.
    auto keep = torch::empty_like(x).bernoulli_(1.0 - rate_, generator_);
    return x * keep / (1.0 - rate_);
  }

 private:
  double rate_;
  c10::optional<at::Generator> generator_;
};
TORCH_MODULE(ReplicaDropout);

// A Conv1D (with the ReLU and MaxPooling1D after it, when it has them) on channels-last input:
// conv_kernels.h's block. Its parameters are LibTorch Conv1d's, named and shaped the same
// ("weight" (filters, channels, kernel), "bias"), and drawn the same way, so checkpoints, exports
// and seeded runs do not tell the two apart.
class ChannelsLastConv1dImpl : public torch::nn::Module {
 public:
  ChannelsLastConv1dImpl(const Op& conv, const Conv1dBlock& block, Compute compute)
      : block_(block), compute_(compute) {
    torch::nn::Conv1d drawn(
        torch::nn::Conv1dOptions(conv.in_channels, conv.layer.units, conv.layer.kernel[0]).bias(conv.layer.use_bias));
    weight = register_parameter("weight", drawn->weight.detach());
    if (conv.layer.use_bias) bias = register_parameter("bias", drawn->bias.detach());
  }
  torch::Tensor forward(torch::Tensor x) {
    return conv1d_block(in_compute(x, compute_), in_compute(weight, compute_), in_compute(bias, compute_), block_);
  }
  torch::Tensor weight, bias;

 private:
  Conv1dBlock block_;
  Compute compute_;
};
TORCH_MODULE(ChannelsLastConv1d);

// A Dense layer on dense_kernel.h's CPU kernel, with LibTorch Linear's parameters (names, shapes
// and the way they are drawn), like ChannelsLastConv1d.
class CpuDenseImpl : public torch::nn::Module {
 public:
  CpuDenseImpl(int64_t in_features, int64_t units, bool use_bias, Compute compute) : compute_(compute) {
    torch::nn::Linear drawn(torch::nn::LinearOptions(in_features, units).bias(use_bias));
    weight = register_parameter("weight", drawn->weight.detach());
    if (use_bias) bias = register_parameter("bias", drawn->bias.detach());
  }
  torch::Tensor forward(torch::Tensor x) {
    return dense(in_compute(x, compute_), in_compute(weight, compute_), in_compute(bias, compute_));
  }
  torch::Tensor weight, bias;

 private:
  Compute compute_;
};
TORCH_MODULE(CpuDense);

// An Embedding on embedding_kernel.h's CPU kernel, with LibTorch Embedding's parameter.
class CpuEmbeddingImpl : public torch::nn::Module {
 public:
  CpuEmbeddingImpl(int64_t rows, int64_t dim, Compute compute) : compute_(compute) {
    torch::nn::Embedding drawn(rows, dim);
    weight = register_parameter("weight", drawn->weight.detach());
  }
  // The rows are looked up in float32, then cast: the table's gradient stays float32.
  torch::Tensor forward(torch::Tensor ids) { return in_compute(embedding_lookup(ids, weight), compute_); }
  torch::Tensor weight;

 private:
  Compute compute_;
};
TORCH_MODULE(CpuEmbedding);

// LibTorch's Conv1d (where no channels-last stretch takes it) or Conv2d computing in `compute`:
// its parameters, options and drawing are LibTorch's own.
template <size_t D>
class MixedConvImpl : public std::conditional_t<D == 1, torch::nn::Conv1dImpl, torch::nn::Conv2dImpl> {
  using Base = std::conditional_t<D == 1, torch::nn::Conv1dImpl, torch::nn::Conv2dImpl>;

 public:
  MixedConvImpl(const torch::nn::ConvOptions<D>& o, torch::ScalarType compute) : Base(o), compute_(compute) {}
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    const auto o = F::ConvFuncOptions<D>()
                       .bias(in_compute(this->bias, compute_))
                       .stride(this->options.stride())
                       .padding(this->options.padding())
                       .dilation(this->options.dilation())
                       .groups(this->options.groups());
    const torch::Tensor xc = in_compute(x, compute_), wc = in_compute(this->weight, compute_);
    if constexpr (D == 1) return F::conv1d(xc, wc, o);
    else return F::conv2d(xc, wc, o);
  }

 private:
  Compute compute_;
};
using MixedConv1dImpl = MixedConvImpl<1>;
using MixedConv2dImpl = MixedConvImpl<2>;
TORCH_MODULE(MixedConv1d);
TORCH_MODULE(MixedConv2d);

// Keras' defaults: Embedding uniform(-0.05, 0.05); Conv and Dense kernels Glorot-uniform, whose
// fans count the receptive field as Keras does (the same as LibTorch's fan computation); biases 0.
void apply_keras_initializers(torch::nn::Sequential& seq) {
  torch::NoGradGuard no_grad;
  for (auto& m : seq->modules(/*include_self=*/false)) {
    if (auto* e = m->as<torch::nn::Embedding>()) {
      e->weight.uniform_(-0.05, 0.05);
    } else if (auto* ce = m->as<CpuEmbeddingImpl>()) {
      ce->weight.uniform_(-0.05, 0.05);
    } else if (m->as<torch::nn::Conv1d>() || m->as<torch::nn::Conv2d>() || m->as<torch::nn::Linear>() ||
               m->as<ChannelsLastConv1dImpl>() || m->as<CpuDenseImpl>()) {
      for (auto& p : m->named_parameters(/*recurse=*/false)) {
        if (p.key() == "weight") torch::nn::init::xavier_uniform_(p.value());
        else if (p.key() == "bias") p.value().zero_();
      }
    }
  }
}

torch::nn::Functional activation_module(Activation a) {
  switch (a) {
    case Activation::kRelu: return torch::nn::Functional(torch::relu);
    case Activation::kSigmoid: return torch::nn::Functional(torch::sigmoid);
    case Activation::kTanh: return torch::nn::Functional(torch::tanh);
    case Activation::kSoftmax:  // in float32 whatever the layers computed in: its probabilities feed the loss
      return torch::nn::Functional([](torch::Tensor x) { return torch::softmax(float_up(x), -1); });
    case Activation::kGelu:
      return torch::nn::Functional([](torch::Tensor x) { return torch::gelu(x); });
    case Activation::kElu:
      return torch::nn::Functional([](torch::Tensor x) { return torch::elu(x); });
    case Activation::kLinear: break;
  }
  return torch::nn::Functional([](torch::Tensor x) { return x; });
}


// The LibTorch module of one op; ops without a name go in unnamed. `cpu_kernels`: Dense and
// Embedding layers on dense_kernel.h's and embedding_kernel.h's kernels.
// `compute`: the dtype of mixed precision, nullopt for none (which LibTorch's own modules, built
// when not `cpu_kernels`, require).
torch::nn::AnyModule op_module(const Op& op, const c10::optional<at::Generator>& dropout_generator,
                               bool cpu_kernels, const Compute& compute) {
  const auto& l = op.layer;
  switch (op.kind) {
    case OpKind::kPermute: {
      std::vector<int64_t> perm = op.perm;
      return torch::nn::AnyModule(torch::nn::Functional([perm](torch::Tensor x) { return x.permute(perm); }));
    }
    case OpKind::kEmbedding:
      if (cpu_kernels) return torch::nn::AnyModule(CpuEmbedding(l.input_dim, l.output_dim, compute));
      return torch::nn::AnyModule(torch::nn::Embedding(l.input_dim, l.output_dim));
    case OpKind::kConv: {
      if (op.spatial == 1) {
        auto o = torch::nn::Conv1dOptions(op.in_channels, l.units, l.kernel[0]).bias(l.use_bias).stride(op.strides[0]);
        if (l.same_padding) o.padding(torch::kSame);
        if (compute) return torch::nn::AnyModule(MixedConv1d(o, *compute));
        return torch::nn::AnyModule(torch::nn::Conv1d(o));
      }
      auto o = torch::nn::Conv2dOptions(op.in_channels, l.units, {l.kernel[0], l.kernel[1]})
                   .bias(l.use_bias)
                   .stride({op.strides[0], op.strides[1]});
      if (l.same_padding) o.padding(torch::kSame);
      if (compute) return torch::nn::AnyModule(MixedConv2d(o, *compute));
      return torch::nn::AnyModule(torch::nn::Conv2d(o));
    }
    case OpKind::kMaxPool:
      if (std::any_of(op.pad_begin.begin(), op.pad_begin.end(), [](int64_t b) { return b > 0; })) {
        // Keras' "same": -inf before the first window (LibTorch's pads are symmetric), then ceil
        // mode, which lets the last window run past the end.
        std::vector<int64_t> pads;  // last axis first, as constant_pad_nd takes them
        for (size_t d = op.pad_begin.size(); d-- > 0;) pads.insert(pads.end(), {op.pad_begin[d], 0});
        const std::vector<int64_t> pool = l.pool, strides = op.strides;
        return torch::nn::AnyModule(torch::nn::Functional([pads, pool, strides](torch::Tensor x) {
          x = torch::constant_pad_nd(x, pads, -std::numeric_limits<double>::infinity());
          const std::vector<int64_t> none(pool.size(), 0), one(pool.size(), 1);
          return pool.size() == 1 ? torch::max_pool1d(x, pool, strides, none, one, /*ceil_mode=*/true)
                                  : torch::max_pool2d(x, pool, strides, none, one, /*ceil_mode=*/true);
        }));
      }
      if (op.spatial == 1)
        return torch::nn::AnyModule(
            torch::nn::MaxPool1d(torch::nn::MaxPool1dOptions(l.pool[0]).stride(op.strides[0]).ceil_mode(l.same_padding)));
      return torch::nn::AnyModule(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions({l.pool[0], l.pool[1]})
                                                           .stride({op.strides[0], op.strides[1]})
                                                           .ceil_mode(l.same_padding)));
    case OpKind::kReduceMax: {
      const int64_t dim = op.dim;
      return torch::nn::AnyModule(torch::nn::Functional([dim](torch::Tensor x) { return std::get<0>(x.max(dim)); }));
    }
    case OpKind::kReduceMean: {
      const int64_t dim = op.dim;
      return torch::nn::AnyModule(torch::nn::Functional([dim](torch::Tensor x) { return x.mean(dim); }));
    }
    case OpKind::kFlatten:
      return torch::nn::AnyModule(torch::nn::Flatten());
    case OpKind::kLinear:
      if (cpu_kernels) return torch::nn::AnyModule(CpuDense(op.in_channels, l.units, l.use_bias, compute));
      return torch::nn::AnyModule(torch::nn::Linear(torch::nn::LinearOptions(op.in_channels, l.units).bias(l.use_bias)));
    case OpKind::kDropout:
      return torch::nn::AnyModule(ReplicaDropout(l.rate, dropout_generator));
    case OpKind::kActivation:
      return torch::nn::AnyModule(activation_module(l.activation));
    case OpKind::kCategoryEncoding: {
      const int64_t n = l.units;
      const bool count = l.count_mode;
      // A bag of words: slot w is 1 (multi_hot) or the number of times (count) id w occurs.
      return torch::nn::AnyModule(torch::nn::Functional([n, count](torch::Tensor x) {
        auto out = torch::zeros({x.size(0), n}, torch::TensorOptions().dtype(torch::kFloat32).device(x.device()));
        if (count) return out.scatter_add_(1, x, torch::ones(x.sizes(), out.options()));
        return out.scatter_(1, x, 1.0);
      }));
    }
  }
  throw std::logic_error("unknown op kind");
}
bool is_relu(const Op& op) { return op.kind == OpKind::kActivation && op.layer.activation == Activation::kRelu; }
bool is_softmax(const Op& op) { return op.kind == OpKind::kActivation && op.layer.activation == Activation::kSoftmax; }
bool is_valid_pool1d(const Op& op) { return op.kind == OpKind::kMaxPool && op.spatial == 1 && !op.layer.same_padding; }

// Ops that may run on a (B, steps, channels) tensor inside a channels-last stretch: 1-D
// convolutions and valid max-pools (which get the channels-last kernels), and elementwise ops.
bool runs_channels_last(const Op& op) {
  switch (op.kind) {
    case OpKind::kConv: return op.spatial == 1;
    case OpKind::kMaxPool: return is_valid_pool1d(op);
    case OpKind::kActivation: return op.layer.activation != Activation::kSoftmax;
    case OpKind::kDropout: return true;
    default: return false;
  }
}

// Where lowering switches a sequence to channels first for LibTorch's 1-D convolutions, the
// stretch up to the switch back (or to the op that reads channels first: a Flatten, a global
// pool) runs channels last on conv_kernels.h's CPU kernels instead, with one permutation at its
// end only where the next op wants channels first. `first` is the Permute; returns the index of
// the first op after the stretch (after the Permute back, when it ends with one), or `first` if
// it cannot be taken.
size_t add_channels_last_stretch(const std::vector<Op>& ops, size_t first, torch::nn::Sequential& seq,
                                 const c10::optional<at::Generator>& dropout_generator, const Compute& compute) {
  size_t end = first + 1;
  bool has_conv = false;
  while (end < ops.size() && runs_channels_last(ops[end])) has_conv |= ops[end++].kind == OpKind::kConv;
  if (!has_conv) return first;
  for (size_t i = first + 1; i < end;) {
    const Op& op = ops[i];
    if (op.kind == OpKind::kConv) {
      Conv1dBlock block;
      block.kernel = op.layer.kernel[0];
      block.stride = op.strides[0];
      if (!op.pad_begin.empty()) {
        block.pad_begin = op.pad_begin[0];
        block.pad_end = op.pad_end[0];
      }
      ++i;
      if (i < end && is_relu(ops[i])) {
        block.relu = true;
        ++i;
      }
      if (i < end && is_valid_pool1d(ops[i])) {
        block.pool = ops[i].layer.pool[0];
        block.pool_stride = ops[i].strides[0];
        ++i;
      }
      seq->push_back(std::string(op.name), torch::nn::AnyModule(ChannelsLastConv1d(op, block, compute)));
    } else if (op.kind == OpKind::kMaxPool) {
      const int64_t pool = op.layer.pool[0], stride = op.strides[0];
      seq->push_back(std::string(op.name), torch::nn::AnyModule(torch::nn::Functional([pool, stride](torch::Tensor x) {
                       return max_pool1d_channels_last(x, pool, stride, /*relu=*/false);
                     })));
      ++i;
    } else {
      seq->push_back(op_module(op, dropout_generator, /*cpu_kernels=*/true, compute));
      ++i;
    }
  }
  if (end < ops.size() && ops[end].kind == OpKind::kPermute) return end + 1;  // back to channels last
  seq->push_back(torch::nn::Functional([](torch::Tensor x) { return x.permute({0, 2, 1}); }));
  return end;
}
}  // namespace

torch::nn::Sequential build_model(const ModelAnalysis& analysis, c10::optional<at::Generator> dropout_generator,
                                  bool cpu_kernels, Precision precision) {
  Compute compute;
  if (precision == Precision::kMixedBf16) {
    if (!cpu_kernels) throw std::invalid_argument("build_model: mixed precision runs on the CPU kernels' modules only");
    compute = torch::kBFloat16;
  }
  torch::nn::Sequential seq;
  const std::vector<Op> ops = lower(analysis);
  bool channels_first = false;
  for (size_t i = 0; i < ops.size();) {
    const Op& op = ops[i];
    if (cpu_kernels && op.kind == OpKind::kPermute && op.perm == std::vector<int64_t>{0, 2, 1} &&
        !channels_first) {
      if (const size_t next = add_channels_last_stretch(ops, i, seq, dropout_generator, compute); next != i) {
        channels_first = ops[next - 1].kind != OpKind::kPermute;  // unless it ended on the way back
        i = next;
        continue;
      }
    }
    if (op.kind == OpKind::kPermute) channels_first = !channels_first;
    if (op.kind == OpKind::kFlatten || op.kind == OpKind::kReduceMax || op.kind == OpKind::kReduceMean ||
        op.kind == OpKind::kEmbedding)
      channels_first = false;
    auto module = op_module(op, dropout_generator, cpu_kernels, compute);
    if (analysis.train_on_probabilities && i + 1 == ops.size() && is_softmax(op)) {
      // Trained on probabilities (layer_spec.h): log(softmax(x)) computed as log_softmax, so that
      // the loss's own log_softmax leaves it as it is and the loss is -log p of the true class.
      module = torch::nn::AnyModule(
          torch::nn::Functional([](torch::Tensor x) { return torch::log_softmax(float_up(x), -1); }));
    }
    if (op.name.empty()) seq->push_back(std::move(module));
    else seq->push_back(op.name, std::move(module));
    ++i;
  }
  if (compute) seq->push_back(torch::nn::Functional(float_up));  // float32 logits for the loss
  if (analysis.initializer == "keras") apply_keras_initializers(seq);
  // The last op's output is (B, classes).
  return seq;
}

}  // namespace mirror
