// Newswire-like token sequences with the shapes of the tutorial's Reuters data.
#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "mirror/data/dataset.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"

namespace mirror {

namespace {
// Keras' Reuters conventions: 0 pads, 1 starts a sequence, 2 is out-of-vocabulary, words from 3.
constexpr int64_t kStartToken = 1;
constexpr int64_t kFirstWord = 3;
constexpr int kKeywordsPerTopic = 40;
constexpr double kTopicRate = 0.10;      // share of a document's words drawn from its topic
constexpr double kSecondTopicRate = 0.04;
constexpr double kSecondTopicChance = 0.35;

// Samples word ranks from a Zipf law (exponent 1.05) over [kFirstWord, vocab).
class ZipfSampler {
 public:
  explicit ZipfSampler(int64_t vocab) : first_(kFirstWord) {
    cdf_.reserve(static_cast<size_t>(vocab - kFirstWord));
    double total = 0;
    for (int64_t r = 1; r <= vocab - kFirstWord; ++r) cdf_.push_back(total += std::pow(double(r), -1.05));
    for (auto& c : cdf_) c /= total;
  }
  int64_t operator()(Rng& rng) const {
    const auto it = std::lower_bound(cdf_.begin(), cdf_.end(), rng.uniform());
    return first_ + std::min<int64_t>(it - cdf_.begin(), static_cast<int64_t>(cdf_.size()) - 1);
  }

 private:
  int64_t first_;
  std::vector<double> cdf_;
};

struct Corpus {
  ZipfSampler background;
  std::vector<std::vector<int64_t>> keywords;  // per topic
  std::vector<double> prior_cdf;               // topic frequencies, Reuters-like imbalance
};

Corpus make_corpus(const SyntheticTextOptions& o, Rng& rng) {
  Corpus c{ZipfSampler(o.vocab_size), {}, {}};
  // Topic keywords are mid-frequency words, as topic words in news are.
  const int64_t lo = std::min<int64_t>(kFirstWord + 50, o.vocab_size - 1);
  const int64_t hi = std::min<int64_t>(kFirstWord + 8000, o.vocab_size);
  for (int64_t t = 0; t < o.classes; ++t) {
    std::vector<int64_t> words;
    for (int k = 0; k < kKeywordsPerTopic; ++k)
      words.push_back(lo + static_cast<int64_t>(rng.below(static_cast<uint64_t>(std::max<int64_t>(1, hi - lo)))));
    c.keywords.push_back(std::move(words));
  }
  // A few topics dominate (as "earn" and "acq" do in Reuters); classes 3 and 4 are the largest.
  std::vector<double> weight(static_cast<size_t>(o.classes));
  std::vector<int64_t> order(static_cast<size_t>(o.classes));
  for (int64_t i = 0; i < o.classes; ++i) order[i] = i;
  if (o.classes > 4) { std::swap(order[0], order[3]); std::swap(order[1], order[4]); }
  for (int64_t rank = 0; rank < o.classes; ++rank) weight[order[rank]] = std::pow(double(rank) + 1.0, -1.3);
  double total = 0;
  for (double w : weight) c.prior_cdf.push_back(total += w);
  for (auto& p : c.prior_cdf) p /= total;
  return c;
}

int64_t draw_topic(const Corpus& c, Rng& rng) {
  const auto it = std::lower_bound(c.prior_cdf.begin(), c.prior_cdf.end(), rng.uniform());
  return std::min<int64_t>(it - c.prior_cdf.begin(), static_cast<int64_t>(c.prior_cdf.size()) - 1);
}

// Fills one row: a start token then words, pre-padded with zeros and pre-truncated (Keras'
// pad_sequences defaults) to the row's length.
void write_document(const SyntheticTextOptions& o, const Corpus& c, Rng& rng, int64_t topic,
                    int64_t* row) {
  const double log_len = std::log(90.0) + 0.75 * rng.normal();
  const int64_t length = std::clamp<int64_t>(static_cast<int64_t>(std::exp(log_len)), 8, 1200);
  const bool has_second = rng.uniform() < kSecondTopicChance;
  const int64_t second = static_cast<int64_t>(rng.below(static_cast<uint64_t>(o.classes)));
  std::vector<int64_t> words;
  words.reserve(static_cast<size_t>(length) + 1);
  words.push_back(kStartToken);
  for (int64_t i = 0; i < length; ++i) {
    const double u = rng.uniform();
    const auto& own = c.keywords[static_cast<size_t>(topic)];
    const auto& other = c.keywords[static_cast<size_t>(second)];
    if (u < kTopicRate) words.push_back(own[rng.below(own.size())]);
    else if (has_second && u < kTopicRate + kSecondTopicRate) words.push_back(other[rng.below(other.size())]);
    else words.push_back(c.background(rng));
  }
  const int64_t n = static_cast<int64_t>(words.size());
  const int64_t keep = std::min(n, o.sequence_length);
  std::fill(row, row + (o.sequence_length - keep), int64_t{0});
  std::copy(words.end() - keep, words.end(), row + (o.sequence_length - keep));
}

std::pair<torch::Tensor, torch::Tensor> make_split(const SyntheticTextOptions& o, const Corpus& c,
                                                   Rng& rng, int64_t n) {
  auto x = torch::empty({n, o.sequence_length}, torch::kInt64);
  auto y = torch::empty({n}, torch::kInt64);
  auto* xp = x.data_ptr<int64_t>();
  auto* yp = y.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    yp[i] = draw_topic(c, rng);
    write_document(o, c, rng, yp[i], xp + i * o.sequence_length);
  }
  return {x, y};
}
}  // namespace

std::shared_ptr<const Dataset> make_synthetic_text(const SyntheticTextOptions& o) {
  if (o.vocab_size < 16 || o.vocab_size > 10'000'000)
    throw ConfigError(fmt::format("synthetic-text: vocabulary size must be in [16, 10000000], got {}", o.vocab_size));
  if (o.classes < 2 || o.classes > 1000)
    throw ConfigError(fmt::format("synthetic-text: classes must be in [2, 1000], got {}", o.classes));
  if (o.sequence_length < 4 || o.sequence_length > 100'000)
    throw ConfigError(fmt::format("synthetic-text: sequence length must be in [4, 100000], got {}", o.sequence_length));
  if (o.train_size < 1 || o.val_size < 1 || o.train_size > 5'000'000 || o.val_size > 5'000'000)
    throw ConfigError(fmt::format("synthetic-text: train/validation sizes must be in [1, 5000000], got {} / {}",
                                  o.train_size, o.val_size));
  Rng rng(o.seed, /*stream=*/0x7e);
  const Corpus corpus = make_corpus(o, rng);
  auto [x_train, y_train] = make_split(o, corpus, rng, o.train_size);
  auto [x_val, y_val] = make_split(o, corpus, rng, o.val_size);
  // Make the largest id occur in training data, so max(x_train) + 1 == vocab_size as in Keras.
  x_train[0][o.sequence_length - 1] = o.vocab_size - 1;

  DatasetInfo info;
  info.name = "synthetic-text";
  info.source = fmt::format("synthetic, seed {}", o.seed);
  info.input_shape = {o.sequence_length};
  info.kind = InputKind::kTokens;
  info.num_classes = o.classes;
  info.vocab_size = o.vocab_size;
  for (int64_t c = 0; c < o.classes; ++c) info.class_names.push_back(fmt::format("topic {}", c));
  return std::make_shared<const Dataset>(std::move(info), x_train, y_train, x_val, y_val);
}

}  // namespace mirror
