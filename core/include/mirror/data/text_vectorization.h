#pragma once
// Keras' TextVectorization layer with its defaults (output_mode="int"), reproduced on plain
// strings: standardize "lower_and_strip_punctuation", split "whitespace", a vocabulary adapted by
// frequency, then token ids padded or truncated at the end. Light: no torch.
//
// What Keras does, read from keras/src/layers/preprocessing/text_vectorization.py and
// index_lookup.py (keras-team/keras master) and the TensorFlow kernels they call:
// - lower: tf.strings.lower(x) with its default encoding "", which is absl::AsciiStrToLower:
//   only A-Z change; "É" and "Σ" stay as they are.
// - strip punctuation: regex_replace(x, r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']', ""): the
//   32 ASCII punctuation characters (Python's string.punctuation) are deleted; Unicode
//   punctuation ("—", "“", "¡") stays.
// - split: tf.strings.split(x) with no separator: runs of ASCII whitespace (space, \t, \n, \v,
//   \f, \r) separate tokens; no empty tokens. A no-break space (U+00A0) does not separate.
// - adapt: every token of the adapted texts is counted; the vocabulary is "" (index 0, padding),
//   "[UNK]" (index 1, out of vocabulary), then the tokens by count, most frequent first, ties
//   broken by the tokens themselves in *descending* byte order (np.lexsort((tokens, counts))
//   reversed), cut to max_tokens entries in all.
// - call: a token in the vocabulary maps to its index, any other to 1; with
//   output_sequence_length the ids are truncated or padded with 0 at the end.
//
// All functions are pure and thread-safe; TextVectorizer is immutable after construction.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mirror {

inline constexpr const char* kKerasOovToken = "[UNK]";

// The byte offset of the first byte of `text` that is not part of well-formed UTF-8 (overlong
// forms, surrogates and code points above U+10FFFF included, as Python's strict decoder refuses
// them); nullopt when all of it is well-formed.
std::optional<size_t> first_invalid_utf8(std::string_view text);

// standardize="lower_and_strip_punctuation": ASCII letters lower-cased, ASCII punctuation deleted,
// every other byte kept.
std::string keras_standardize(std::string_view text);

// split="whitespace": the tokens of `text` between runs of ASCII whitespace, in order.
std::vector<std::string_view> keras_split_whitespace(std::string_view text);

// Token counts as adapt() gathers them: call add() for each adapted text, then vocabulary().
class TextVocabularyBuilder {
 public:
  // Standardizes and splits `text` and counts its tokens; returns how many it had.
  int64_t add(std::string_view text);
  // get_vocabulary() after adapt(): "", "[UNK]", then the counted tokens (without "" and
  // "[UNK]", which Keras removes from its counts) by count descending, ties by the token's bytes
  // descending; at most `max_tokens` entries in all (0: no limit). Throws ConfigError when
  // max_tokens is 1 or negative (Keras: "max_tokens must be greater than 1").
  std::vector<std::string> vocabulary(int64_t max_tokens) const;

 private:
  std::unordered_map<std::string, int64_t> counts_;
};

// The layer after adapt(): maps texts to token ids.
class TextVectorizer {
 public:
  // `vocabulary` as get_vocabulary() returns it: [0] == "", [1] == "[UNK]", the rest distinct.
  // Throws ConfigError otherwise.
  explicit TextVectorizer(std::vector<std::string> vocabulary);

  const std::vector<std::string>& vocabulary() const { return vocabulary_; }
  int64_t vocabulary_size() const { return static_cast<int64_t>(vocabulary_.size()); }

  // The ids of `text`'s tokens (standardized and split), 1 for a token not in the vocabulary;
  // as many as there are tokens.
  std::vector<int64_t> ids(std::string_view text) const;
  // `ids` truncated or padded with 0 at the end to exactly `length` entries
  // (output_sequence_length). `length` must be >= 0.
  static std::vector<int64_t> fit_length(std::vector<int64_t> ids, int64_t length);

 private:
  std::vector<std::string> vocabulary_;
  std::unordered_map<std::string, int64_t> index_;
};

}  // namespace mirror
