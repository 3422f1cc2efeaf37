#include "mirror/model/builder.h"

#include <fmt/format.h>
#include <torch/torch.h>

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

// Keras keeps channels last; LibTorch's convolutions and pools want them first. The builder
// tracks which layout the running tensor is in and permutes only where a layer needs the other.
class LayoutTracker {
 public:
  LayoutTracker(torch::nn::Sequential& seq) : seq_(seq) {}
  void need_channels_first(size_t rank) {
    if (channels_first_ || rank < 2) return;
    if (rank == 2) seq_->push_back(torch::nn::Functional([](torch::Tensor x) { return x.permute({0, 2, 1}); }));
    else seq_->push_back(torch::nn::Functional([](torch::Tensor x) { return x.permute({0, 3, 1, 2}); }));
    channels_first_ = true;
  }
  void need_channels_last(size_t rank) {
    if (!channels_first_ || rank < 2) return;
    if (rank == 2) seq_->push_back(torch::nn::Functional([](torch::Tensor x) { return x.permute({0, 2, 1}); }));
    else seq_->push_back(torch::nn::Functional([](torch::Tensor x) { return x.permute({0, 2, 3, 1}); }));
    channels_first_ = false;
  }
  bool channels_first() const { return channels_first_; }
  void set_channels_first(bool v) { channels_first_ = v; }

 private:
  torch::nn::Sequential& seq_;
  bool channels_first_ = false;
};
}  // namespace

torch::nn::Sequential build_model(const ModelAnalysis& analysis,
                                  c10::optional<at::Generator> dropout_generator) {
  if (!analysis.ok()) throw ConfigError(fmt::format("model does not fit the data: {}", analysis.describe_errors()));
  torch::nn::Sequential seq;
  LayoutTracker layout(seq);
  std::vector<int64_t> in_shape = analysis.input_shape;  // entering the layer, Keras layout
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    const auto& r = analysis.layers[i];
    const auto& l = r.resolved;
    const size_t rank = in_shape.size();
    const int64_t channels = in_shape.empty() ? 0 : in_shape.back();
    switch (l.kind) {
      case LayerKind::kEmbedding:
        seq->push_back(std::string(r.name), torch::nn::Embedding(l.input_dim, l.output_dim));
        layout.set_channels_first(false);
        break;
      case LayerKind::kConv1D: {
        layout.need_channels_first(rank);
        auto o = torch::nn::Conv1dOptions(channels, l.units, l.kernel[0]).bias(l.use_bias);
        if (!l.strides.empty()) o.stride(l.strides[0]);
        if (l.same_padding) o.padding(torch::kSame);
        seq->push_back(std::string(r.name), torch::nn::Conv1d(o));
        if (l.activation != Activation::kLinear) seq->push_back(activation_module(l.activation));
        break;
      }
      case LayerKind::kConv2D: {
        layout.need_channels_first(rank);
        auto o = torch::nn::Conv2dOptions(channels, l.units, {l.kernel[0], l.kernel[1]}).bias(l.use_bias);
        if (!l.strides.empty()) o.stride({l.strides[0], l.strides[1]});
        if (l.same_padding) o.padding(torch::kSame);
        seq->push_back(std::string(r.name), torch::nn::Conv2d(o));
        if (l.activation != Activation::kLinear) seq->push_back(activation_module(l.activation));
        break;
      }
      case LayerKind::kMaxPool1D: {
        layout.need_channels_first(rank);
        const int64_t stride = l.strides.empty() ? l.pool[0] : l.strides[0];
        seq->push_back(std::string(r.name), torch::nn::MaxPool1d(torch::nn::MaxPool1dOptions(l.pool[0]).stride(stride).ceil_mode(l.same_padding)));
        break;
      }
      case LayerKind::kMaxPool2D: {
        layout.need_channels_first(rank);
        const auto stride = l.strides.empty() ? l.pool : l.strides;
        seq->push_back(std::string(r.name), torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions({l.pool[0], l.pool[1]})
                                                        .stride({stride[0], stride[1]})
                                                        .ceil_mode(l.same_padding)));
        break;
      }
      case LayerKind::kGlobalMaxPool1D:
      case LayerKind::kGlobalAveragePool1D: {
        const int64_t steps_dim = layout.channels_first() ? 2 : 1;
        if (l.kind == LayerKind::kGlobalMaxPool1D)
          seq->push_back(std::string(r.name), torch::nn::Functional([steps_dim](torch::Tensor x) { return std::get<0>(x.max(steps_dim)); }));
        else
          seq->push_back(std::string(r.name), torch::nn::Functional([steps_dim](torch::Tensor x) { return x.mean(steps_dim); }));
        layout.set_channels_first(false);
        break;
      }
      case LayerKind::kFlatten:
        seq->push_back(std::string(r.name), torch::nn::Flatten());
        layout.set_channels_first(false);
        break;
      case LayerKind::kDense:
        layout.need_channels_last(rank);
        seq->push_back(std::string(r.name), torch::nn::Linear(torch::nn::LinearOptions(channels, l.units).bias(l.use_bias)));
        if (l.activation != Activation::kLinear) seq->push_back(activation_module(l.activation));
        break;
      case LayerKind::kDropout:
        seq->push_back(std::string(r.name), ReplicaDropout(l.rate, dropout_generator));
        break;
      case LayerKind::kActivation:
        seq->push_back(std::string(r.name), activation_module(l.activation));
        break;
      case LayerKind::kCategoryEncoding: {
        const int64_t n = l.units;
        const bool count = l.count_mode;
        // A bag of words: slot w is 1 (multi_hot) or the number of times (count) id w occurs.
        seq->push_back(std::string(r.name), torch::nn::Functional([n, count](torch::Tensor x) {
          auto out = torch::zeros({x.size(0), n}, torch::TensorOptions().dtype(torch::kFloat32).device(x.device()));
          if (count) return out.scatter_add_(1, x, torch::ones(x.sizes(), out.options()));
          return out.scatter_(1, x, 1.0);
        }));
        break;
      }
    }
    in_shape = r.output_shape;
  }
  if (analysis.initializer == "keras") apply_keras_initializers(seq);
  // The last layer's output is (B, classes) whatever the layout tracker says.
  return seq;
}

}  // namespace mirror
