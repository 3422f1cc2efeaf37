#pragma once
// Keras' text-dataset semantics, reproduced exactly: numpy's legacy RandomState shuffle,
// reuters/imdb load_data (start/oov/index_from, num_words, skip_top, maxlen, test_split) and
// pad_sequences.

#include <torch/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace mirror {

// numpy.random.RandomState(seed): MT19937 seeded like numpy's legacy integer seeding, with its
// legacy bounded draw (mask and reject). Not thread-safe.
class NumpyLegacyRandom {
 public:
  explicit NumpyLegacyRandom(uint32_t seed);
  uint32_t next_uint32();
  // numpy's random_interval(max): uniform in [0, max].
  uint64_t interval(uint64_t max);

 private:
  uint32_t state_[624];
  int index_ = 624;
};

// What `idx = np.arange(n); np.random.RandomState(seed).shuffle(idx)` leaves in idx.
std::vector<int64_t> numpy_legacy_shuffled_range(int64_t n, uint32_t seed);

using Sequences = std::vector<std::vector<int64_t>>;

struct TextSplit {
  Sequences x;
  std::vector<int64_t> y;
};

// load_data's keyword arguments, with Keras' defaults. An unset optional is Python's None.
struct KerasTextOptions {
  std::optional<int64_t> num_words;  // keep ids below this; None: the largest id seen
  int64_t skip_top = 0;              // ids below this become oov_char (or are dropped)
  std::optional<int64_t> maxlen;     // drop sequences whose length (start_char included) is >= maxlen
  double test_split = 0.2;           // reuters only
  uint32_t seed = 113;
  std::optional<int64_t> start_char = 1;
  std::optional<int64_t> oov_char = 2;  // None: out-of-range ids are dropped instead
  int64_t index_from = 3;
};

struct KerasTextData {
  TextSplit train, test;
  int64_t num_words = 0;  // the bound in effect: every id is below it
};

// keras.datasets.reuters.load_data on the arrays of reuters.npz (x: sequences, y: labels).
// Throws ConfigError for impossible options, DataError when x and y differ in length or maxlen
// leaves nothing.
KerasTextData keras_reuters_load_data(Sequences xs, std::vector<int64_t> labels, const KerasTextOptions& options);

// keras.datasets.imdb.load_data on the arrays of imdb.npz (separate train and test sets): one
// RandomState(seed) shuffles train then test; maxlen filters each split (neither may become
// empty); num_words (None: the largest id of both) and the oov rule apply to both.
KerasTextData keras_imdb_load_data(TextSplit train, TextSplit test, const KerasTextOptions& options);

enum class PadSide { kPre, kPost };

struct PadOptions {
  std::optional<int64_t> maxlen;  // None: the longest sequence
  PadSide padding = PadSide::kPre;
  PadSide truncating = PadSide::kPre;
  int64_t value = 0;
};

// keras.utils.pad_sequences: an int64 tensor (len(sequences), maxlen). Throws ConfigError when
// maxlen < 1.
torch::Tensor pad_sequences(const Sequences& sequences, const PadOptions& options);

}  // namespace mirror
