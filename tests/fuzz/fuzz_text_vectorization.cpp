// libFuzzer target: one text file's bytes through the "texts" dataset's path: the UTF-8 check,
// Keras' standardization and whitespace split, a vocabulary adapted on the text and its ids.
// Any crash, sanitizer report or broken invariant (__builtin_trap) is a bug; nothing may throw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mirror/data/text_vectorization.h"

namespace {
bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto bad = mirror::first_invalid_utf8(text); bad && *bad >= size) __builtin_trap();

  const std::string standardized = mirror::keras_standardize(text);
  if (standardized.size() > size) __builtin_trap();
  for (unsigned char c : standardized)
    if ((c >= 'A' && c <= 'Z') || std::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~").find(char(c)) != std::string_view::npos)
      __builtin_trap();

  const auto tokens = mirror::keras_split_whitespace(standardized);
  for (std::string_view t : tokens) {
    if (t.empty()) __builtin_trap();
    for (unsigned char c : t)
      if (is_space(c)) __builtin_trap();
  }

  mirror::TextVocabularyBuilder builder;
  if (builder.add(text) != static_cast<int64_t>(tokens.size())) __builtin_trap();
  // The first byte picks max_tokens: 0 (none) or 2..257.
  const int64_t max_tokens = size == 0 || data[0] == 0 ? 0 : int64_t{data[0]} + 1;
  const auto vocabulary = builder.vocabulary(max_tokens);
  if (vocabulary.size() < 2 || (max_tokens > 0 && static_cast<int64_t>(vocabulary.size()) > max_tokens)) __builtin_trap();
  const mirror::TextVectorizer vectorizer(vocabulary);
  const auto ids = vectorizer.ids(text);
  if (ids.size() != tokens.size()) __builtin_trap();
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 1 || ids[i] >= vectorizer.vocabulary_size()) __builtin_trap();
    // Every token adapted on this very text is in the vocabulary unless max_tokens cut it.
    if (max_tokens == 0 && (ids[i] == 1 || vocabulary[static_cast<size_t>(ids[i])] != tokens[i])) __builtin_trap();
  }
  const auto fitted = mirror::TextVectorizer::fit_length(ids, 7);
  if (fitted.size() != 7) __builtin_trap();
  return 0;
}
