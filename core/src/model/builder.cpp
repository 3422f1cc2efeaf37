#include "mirror/model/builder.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "mirror/model/lowering.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
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

// Keras' defaults: Embedding uniform(-0.05, 0.05); Conv and Dense kernels Glorot-uniform, whose
// fans count the receptive field as Keras does (the same as LibTorch's fan computation); biases 0.
void apply_keras_initializers(torch::nn::Sequential& seq) {
  torch::NoGradGuard no_grad;
  for (auto& m : seq->modules(/*include_self=*/false)) {
    if (auto* e = m->as<torch::nn::Embedding>()) {
      e->weight.uniform_(-0.05, 0.05);
    } else if (m->as<torch::nn::Conv1d>() || m->as<torch::nn::Conv2d>() || m->as<torch::nn::Linear>()) {
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
    case Activation::kSoftmax:
      return torch::nn::Functional([](torch::Tensor x) { return torch::softmax(x, -1); });
    case Activation::kGelu:
      return torch::nn::Functional([](torch::Tensor x) { return torch::gelu(x); });
    case Activation::kElu:
      return torch::nn::Functional([](torch::Tensor x) { return torch::elu(x); });
    case Activation::kLinear: break;
  }
  return torch::nn::Functional([](torch::Tensor x) { return x; });
}


// The LibTorch module of one op; ops without a name go in unnamed.
torch::nn::AnyModule op_module(const Op& op, const c10::optional<at::Generator>& dropout_generator) {
  const auto& l = op.layer;
  switch (op.kind) {
    case OpKind::kPermute: {
      std::vector<int64_t> perm = op.perm;
      return torch::nn::AnyModule(torch::nn::Functional([perm](torch::Tensor x) { return x.permute(perm); }));
    }
    case OpKind::kEmbedding:
      return torch::nn::AnyModule(torch::nn::Embedding(l.input_dim, l.output_dim));
    case OpKind::kConv: {
      if (op.spatial == 1) {
        auto o = torch::nn::Conv1dOptions(op.in_channels, l.units, l.kernel[0]).bias(l.use_bias).stride(op.strides[0]);
        if (l.same_padding) o.padding(torch::kSame);
        return torch::nn::AnyModule(torch::nn::Conv1d(o));
      }
      auto o = torch::nn::Conv2dOptions(op.in_channels, l.units, {l.kernel[0], l.kernel[1]})
                   .bias(l.use_bias)
                   .stride({op.strides[0], op.strides[1]});
      if (l.same_padding) o.padding(torch::kSame);
      return torch::nn::AnyModule(torch::nn::Conv2d(o));
    }
    case OpKind::kMaxPool:
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
}  // namespace

torch::nn::Sequential build_model(const ModelAnalysis& analysis,
                                  c10::optional<at::Generator> dropout_generator) {
  torch::nn::Sequential seq;
  for (const Op& op : lower(analysis)) {
    auto module = op_module(op, dropout_generator);
    if (op.name.empty()) seq->push_back(std::move(module));
    else seq->push_back(op.name, std::move(module));
  }
  if (analysis.initializer == "keras") apply_keras_initializers(seq);
  // The last op's output is (B, classes).
  return seq;
}

}  // namespace mirror
