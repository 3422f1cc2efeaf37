#include "mirror/data/text_vectorization.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "mirror/util/error.h"

namespace mirror {

namespace {
// The bytes Keras' punctuation regex deletes: Python's string.punctuation.
constexpr std::string_view kAsciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

bool is_ascii_punctuation(unsigned char c) { return kAsciiPunctuation.find(static_cast<char>(c)) != std::string_view::npos; }

// absl::ascii_isspace, which TensorFlow's whitespace split uses.
bool is_ascii_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

std::optional<size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The lead byte fixes the length and the allowed range of the second byte (which rules out
    // overlong forms, surrogates and code points above U+10FFFF), as in Unicode's table 3-7.
    size_t length = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) length = 2;
    else if (c == 0xE0) length = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) length = 3;
    else if (c == 0xED) length = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) length = 3;
    else if (c == 0xF0) length = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) length = 4;
    else if (c == 0xF4) length = 4, hi = 0x8F;
    else return i;
    if (i + length > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < length; ++k)
      if (!is_continuation(s[i + k])) return i;
    i += length;
  }
  return std::nullopt;
}

std::string keras_standardize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (is_ascii_punctuation(c)) continue;
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : ch;
  }
  return out;
}

std::vector<std::string_view> keras_split_whitespace(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_ascii_space(static_cast<unsigned char>(text[i]))) ++i;
    const size_t begin = i;
    while (i < text.size() && !is_ascii_space(static_cast<unsigned char>(text[i]))) ++i;
    if (i > begin) tokens.push_back(text.substr(begin, i - begin));
  }
  return tokens;
}

int64_t TextVocabularyBuilder::add(std::string_view text) {
  const std::string standardized = keras_standardize(text);
  const auto tokens = keras_split_whitespace(standardized);
  std::string key;
  for (std::string_view token : tokens) {
    key.assign(token.data(), token.size());
    ++counts_[key];
  }
  return static_cast<int64_t>(tokens.size());
}

std::vector<std::string> TextVocabularyBuilder::vocabulary(int64_t max_tokens) const {
  if (max_tokens < 0 || max_tokens == 1)
    throw ConfigError(fmt::format("max_tokens (num_words) must be 0 (no limit) or greater than 1, got {}", max_tokens));
  std::vector<std::pair<const std::string*, int64_t>> ranked;
  ranked.reserve(counts_.size());
  for (const auto& [token, count] : counts_)
    if (!token.empty() && token != kKerasOovToken) ranked.emplace_back(&token, count);
  // Count descending, then the token's bytes descending: np.lexsort((tokens, counts))[::-1].
  std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return *a.first > *b.first;
  });
  std::vector<std::string> vocabulary{"", kKerasOovToken};
  const size_t learned = max_tokens == 0 ? ranked.size()
                                         : std::min(ranked.size(), static_cast<size_t>(max_tokens) - vocabulary.size());
  vocabulary.reserve(vocabulary.size() + learned);
  for (size_t i = 0; i < learned; ++i) vocabulary.push_back(*ranked[i].first);
  return vocabulary;
}

TextVectorizer::TextVectorizer(std::vector<std::string> vocabulary) : vocabulary_(std::move(vocabulary)) {
  if (vocabulary_.size() < 2 || !vocabulary_[0].empty() || vocabulary_[1] != kKerasOovToken)
    throw ConfigError("a TextVectorization vocabulary starts with \"\" (padding) and \"[UNK]\" (out of vocabulary)");
  index_.reserve(vocabulary_.size());
  for (size_t i = 2; i < vocabulary_.size(); ++i) {
    const std::string& token = vocabulary_[i];
    if (token.empty() || token == kKerasOovToken || !index_.emplace(token, static_cast<int64_t>(i)).second)
      throw ConfigError(fmt::format("a TextVectorization vocabulary lists a token twice (entry {})", i));
  }
}

std::vector<int64_t> TextVectorizer::ids(std::string_view text) const {
  const std::string standardized = keras_standardize(text);
  const auto tokens = keras_split_whitespace(standardized);
  std::vector<int64_t> out;
  out.reserve(tokens.size());
  std::string key;
  for (std::string_view token : tokens) {
    key.assign(token.data(), token.size());
    const auto it = index_.find(key);
    out.push_back(it == index_.end() ? 1 : it->second);
  }
  return out;
}

std::vector<int64_t> TextVectorizer::fit_length(std::vector<int64_t> ids, int64_t length) {
  ids.resize(static_cast<size_t>(std::max<int64_t>(length, 0)), 0);
  return ids;
}

}  // namespace mirror
