#include "mirror/model/presets.h"

#include <fmt/format.h>

#include "mirror/util/error.h"

namespace mirror {

namespace {
LayerSpec embedding(int64_t input_dim, int64_t width) {
  LayerSpec l;
  l.kind = LayerKind::kEmbedding;
  l.input_dim = input_dim;
  l.output_dim = width;
  return l;
}
LayerSpec conv(LayerKind kind, int64_t filters, std::vector<int64_t> kernel, Activation a) {
  LayerSpec l;
  l.kind = kind;
  l.units = filters;
  l.kernel = std::move(kernel);
  l.activation = a;
  return l;
}
LayerSpec pool(LayerKind kind, std::vector<int64_t> size) {
  LayerSpec l;
  l.kind = kind;
  l.pool = std::move(size);
  return l;
}
LayerSpec simple(LayerKind kind) {
  LayerSpec l;
  l.kind = kind;
  return l;
}
LayerSpec dense(int64_t units, Activation a = Activation::kLinear) {
  LayerSpec l;
  l.kind = LayerKind::kDense;
  l.units = units;
  l.activation = a;
  return l;
}
LayerSpec dropout(double rate) {
  LayerSpec l;
  l.kind = LayerKind::kDropout;
  l.rate = rate;
  return l;
}

std::vector<Preset> make_presets() {
  std::vector<Preset> out;
  // The tutorial's model on Keras' Reuters: Keras initialisers, Nadam(1e-3), batch 32, 10 epochs,
  // MAX_LEN 300 (the dataset's default padding), 2 logical devices.
  auto tutorial = [] {
    Preset p;
    p.model.name = "sequential";
    p.model.initializer = "keras";
    p.model.layers = {embedding(kFromDataset, 7),
                      conv(LayerKind::kConv1D, 64, {5}, Activation::kRelu),
                      pool(LayerKind::kMaxPool1D, {2}),
                      conv(LayerKind::kConv1D, 32, {3}, Activation::kRelu),
                      pool(LayerKind::kMaxPool1D, {2}),
                      simple(LayerKind::kFlatten),
                      dense(kFromDataset)};
    p.dataset = "reuters";
    p.optimizer = "nadam";
    p.learning_rate = 1e-3;
    p.batch_size = 32;
    p.epochs = 10;
    p.logical_devices = 2;
    return p;
  };
  {
    // Logits into sparse categorical cross-entropy: the correct form.
    Preset p = tutorial();
    p.name = "seed-reuters";
    p.description = "the tutorial's Conv1D text classifier: Embedding(vocab, 7), two Conv1D/MaxPool1D, Dense(classes)";
    out.push_back(std::move(p));
  }
  {
    // The tutorial as published: a softmax output fed to a from_logits=True loss, so the loss
    // applies softmax twice. Kept so a class can compare it with seed-reuters side by side.
    Preset p = tutorial();
    p.name = "seed-reuters-as-published";
    p.description = "seed-reuters with the tutorial's mistake: softmax outputs fed to a loss that expects logits";
    p.model.layers.back().activation = Activation::kSoftmax;
    out.push_back(std::move(p));
  }
  {
    // Keras' Reuters MLP example: a multi-hot bag of the 10,000 most frequent words.
    Preset p;
    p.name = "reuters-mlp";
    p.description = "bag-of-words MLP over the 10,000 most frequent words: Dense(512, relu), Dropout(0.5), Dense(classes)";
    p.model.name = "reuters_mlp";
    p.model.initializer = "keras";
    LayerSpec bag = simple(LayerKind::kCategoryEncoding);
    bag.units = 10000;
    p.model.layers = {bag, dense(512, Activation::kRelu), dropout(0.5), dense(kFromDataset)};
    p.dataset = "reuters";
    p.num_words = 10000;
    p.optimizer = "adam";
    p.learning_rate = 1e-3;
    p.batch_size = 32;
    p.epochs = 5;
    p.logical_devices = 2;
    out.push_back(std::move(p));
  }
  {
    Preset p;
    p.name = "fashion-cnn";
    p.description = "a small CNN for 28x28 images: Conv2D(16)/pool, Conv2D(32)/pool, Dense(64), Dense(classes)";
    p.model.name = "fashion_cnn";
    p.model.layers = {conv(LayerKind::kConv2D, 16, {3, 3}, Activation::kRelu),
                      pool(LayerKind::kMaxPool2D, {2, 2}),
                      conv(LayerKind::kConv2D, 32, {3, 3}, Activation::kRelu),
                      pool(LayerKind::kMaxPool2D, {2, 2}),
                      simple(LayerKind::kFlatten),
                      dropout(0.25),
                      dense(64, Activation::kRelu),
                      dense(kFromDataset)};
    p.dataset = "fashion-mnist";
    p.optimizer = "adam";
    p.learning_rate = 1e-3;
    p.batch_size = 64;
    p.epochs = 3;
    p.logical_devices = 2;
    out.push_back(std::move(p));
  }
  {
    Preset p;
    p.name = "spirals-mlp";
    p.description = "a two-hidden-layer MLP for 2-D point sets (spirals, blobs, xor, circles)";
    p.model.name = "spirals_mlp";
    p.model.layers = {dense(64, Activation::kRelu), dense(64, Activation::kRelu), dense(kFromDataset)};
    p.dataset = "spirals";
    p.optimizer = "adam";
    p.learning_rate = 1e-2;
    p.batch_size = 64;
    p.epochs = 30;
    p.logical_devices = 2;
    out.push_back(std::move(p));
  }
  return out;
}
}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = make_presets();
  return all;
}

const Preset& find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return p;
  std::string names;
  for (const auto& p : presets()) names += (names.empty() ? "" : ", ") + p.name;
  throw ConfigError(fmt::format("unknown preset '{}' (known: {})", name, names));
}

}  // namespace mirror
