#include "mirror/data/keras_text.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "mirror/util/error.h"

namespace mirror {

// MT19937 (Matsumoto & Nishimura), seeded with the reference init_genrand, as numpy's legacy
// RandomState does for an integer seed below 2^32.
NumpyLegacyRandom::NumpyLegacyRandom(uint32_t seed) {
  state_[0] = seed;
  for (uint32_t i = 1; i < 624; ++i) state_[i] = 1812433253u * (state_[i - 1] ^ (state_[i - 1] >> 30)) + i;
}

uint32_t NumpyLegacyRandom::next_uint32() {
  if (index_ >= 624) {
    // Regenerate the whole block: twist each word with its successor and the word 397 ahead.
    for (int i = 0; i < 624; ++i) {
      const uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % 624] & 0x7fffffffu);
      state_[i] = state_[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }
  uint32_t y = state_[index_++];
  // Tempering.
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

uint64_t NumpyLegacyRandom::interval(uint64_t max) {
  if (max == 0) return 0;
  // The smallest all-ones mask covering max; draws above max are rejected.
  uint64_t mask = max;
  for (int shift : {1, 2, 4, 8, 16, 32}) mask |= mask >> shift;
  uint64_t value;
  if (max <= 0xffffffffull) {
    do value = next_uint32() & mask; while (value > max);
  } else {
    do value = ((static_cast<uint64_t>(next_uint32()) << 32) | next_uint32()) & mask; while (value > max);
  }
  return value;
}

std::vector<int64_t> numpy_legacy_shuffled_range(int64_t n, uint32_t seed) {
  std::vector<int64_t> idx(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  NumpyLegacyRandom rng(seed);
  // numpy's legacy shuffle: from the end, swap each element with a uniformly drawn earlier one.
  for (int64_t i = n - 1; i > 0; --i) std::swap(idx[i], idx[rng.interval(static_cast<uint64_t>(i))]);
  return idx;
}

namespace {
void check_options(const KerasTextOptions& o) {
  if (o.num_words && *o.num_words < 1) throw ConfigError(fmt::format("num_words must be >= 1, got {}", *o.num_words));
  if (o.skip_top < 0) throw ConfigError(fmt::format("skip_top must be >= 0, got {}", o.skip_top));
  if (o.maxlen && *o.maxlen < 1) throw ConfigError(fmt::format("maxlen must be >= 1, got {}", *o.maxlen));
  if (!(o.test_split >= 0 && o.test_split < 1)) throw ConfigError(fmt::format("test_split must be in [0, 1), got {}", o.test_split));
  if (o.index_from < 0) throw ConfigError(fmt::format("index_from must be >= 0, got {}", o.index_from));
}

template <typename T>
std::vector<T> take(const std::vector<T>& v, const std::vector<int64_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (int64_t i : order) out.push_back(v[static_cast<size_t>(i)]);
  return out;
}

// Keras' vocabulary limit: ids outside [skip_top, num_words) become oov_char, or are dropped.
void limit_vocabulary(Sequences& xs, const KerasTextOptions& o, int64_t num_words) {
  for (auto& x : xs) {
    if (o.oov_char) {
      for (auto& w : x)
        if (!(o.skip_top <= w && w < num_words)) w = *o.oov_char;
    } else {
      x.erase(std::remove_if(x.begin(), x.end(), [&](int64_t w) { return !(o.skip_top <= w && w < num_words); }), x.end());
    }
  }
}

// Steps both loaders share, in Keras' order: start_char and index_from, the maxlen filter,
// num_words (None: the largest id), then the vocabulary limit. Returns num_words in effect.
int64_t apply_vocabulary_rules(Sequences& xs, std::vector<int64_t>& labels, const KerasTextOptions& o) {
  for (auto& x : xs) {
    for (auto& w : x) w += o.index_from;
    if (o.start_char) x.insert(x.begin(), *o.start_char);
  }
  if (o.maxlen) {
    // Keras keeps only sequences strictly shorter than maxlen.
    Sequences kept_x;
    std::vector<int64_t> kept_y;
    for (size_t i = 0; i < xs.size(); ++i)
      if (static_cast<int64_t>(xs[i].size()) < *o.maxlen) {
        kept_x.push_back(std::move(xs[i]));
        kept_y.push_back(labels[i]);
      }
    xs = std::move(kept_x);
    labels = std::move(kept_y);
  }
  int64_t num_words = 0;
  if (o.num_words) {
    num_words = *o.num_words;
  } else {
    // Keras: num_words = max(max(x) for x in xs), so ids must be *below* the largest id and the
    // single largest id becomes oov_char (or is dropped).
    for (const auto& x : xs)
      for (int64_t w : x) num_words = std::max(num_words, w);
  }
  limit_vocabulary(xs, o, num_words);
  return num_words;
}
}  // namespace

KerasTextData keras_reuters_load_data(Sequences xs, std::vector<int64_t> labels, const KerasTextOptions& o) {
  check_options(o);
  if (xs.size() != labels.size())
    throw DataError(fmt::format("reuters: {} sequences but {} labels", xs.size(), labels.size()));
  const auto order = numpy_legacy_shuffled_range(static_cast<int64_t>(xs.size()), o.seed);
  xs = take(xs, order);
  labels = take(labels, order);
  KerasTextData d;
  d.num_words = apply_vocabulary_rules(xs, labels, o);
  if (xs.empty()) throw DataError(fmt::format("reuters: maxlen={} leaves no sequence; raise it", o.maxlen.value_or(0)));
  const auto split = static_cast<size_t>(static_cast<double>(xs.size()) * (1.0 - o.test_split));
  d.train.x.assign(std::make_move_iterator(xs.begin()), std::make_move_iterator(xs.begin() + static_cast<long>(split)));
  d.test.x.assign(std::make_move_iterator(xs.begin() + static_cast<long>(split)), std::make_move_iterator(xs.end()));
  d.train.y.assign(labels.begin(), labels.begin() + static_cast<long>(split));
  d.test.y.assign(labels.begin() + static_cast<long>(split), labels.end());
  return d;
}

KerasTextData keras_imdb_load_data(TextSplit train, TextSplit test, const KerasTextOptions& o) {
  check_options(o);
  if (train.x.size() != train.y.size() || test.x.size() != test.y.size())
    throw DataError("imdb: sequences and labels differ in number");
  // One generator shuffles the training set, then (continuing its stream) the test set.
  NumpyLegacyRandom rng(o.seed);
  auto shuffle = [&rng](TextSplit& s) {
    std::vector<int64_t> order(s.x.size());
    std::iota(order.begin(), order.end(), int64_t{0});
    for (int64_t i = static_cast<int64_t>(order.size()) - 1; i > 0; --i)
      std::swap(order[static_cast<size_t>(i)], order[rng.interval(static_cast<uint64_t>(i))]);
    s.x = take(s.x, order);
    s.y = take(s.y, order);
  };
  shuffle(train);
  shuffle(test);
  // Shift ids and filter by maxlen in each split separately; neither may end up empty.
  KerasTextOptions shift_only = o;
  shift_only.num_words = std::numeric_limits<int64_t>::max();
  shift_only.skip_top = 0;
  for (auto* s : {&train, &test}) {
    apply_vocabulary_rules(s->x, s->y, shift_only);
    if (s->x.empty()) throw DataError(fmt::format("imdb: maxlen={} leaves no {} sequence; raise it", o.maxlen.value_or(0),
                                                  s == &train ? "training" : "test"));
  }
  // num_words and the oov rule over both splits together; the split stays where it was.
  KerasTextData d;
  d.num_words = o.num_words.value_or(0);
  if (!o.num_words)
    for (const auto* s : {&train, &test})
      for (const auto& x : s->x)
        for (int64_t w : x) d.num_words = std::max(d.num_words, w);
  for (auto* s : {&train, &test}) limit_vocabulary(s->x, o, d.num_words);
  d.train = std::move(train);
  d.test = std::move(test);
  return d;
}

torch::Tensor pad_sequences(const Sequences& sequences, const PadOptions& o) {
  int64_t maxlen = 0;
  if (o.maxlen) {
    maxlen = *o.maxlen;
    if (maxlen < 1) throw ConfigError(fmt::format("pad_sequences: maxlen must be >= 1, got {}", maxlen));
  } else {
    for (const auto& s : sequences) maxlen = std::max<int64_t>(maxlen, static_cast<int64_t>(s.size()));
  }
  auto out = torch::full({static_cast<int64_t>(sequences.size()), maxlen}, o.value, torch::kInt64);
  auto* p = out.data_ptr<int64_t>();
  for (size_t i = 0; i < sequences.size(); ++i) {
    const auto& s = sequences[i];
    const int64_t n = static_cast<int64_t>(s.size());
    const int64_t keep = std::min(n, maxlen);
    if (keep == 0) continue;
    // truncating="pre" keeps the last maxlen ids, "post" the first.
    const auto first = o.truncating == PadSide::kPre ? s.end() - keep : s.begin();
    int64_t* row = p + static_cast<int64_t>(i) * maxlen;
    // padding="pre" puts the values at the end of the row, "post" at its start.
    std::copy(first, first + keep, o.padding == PadSide::kPre ? row + (maxlen - keep) : row);
  }
  return out;
}

}  // namespace mirror
