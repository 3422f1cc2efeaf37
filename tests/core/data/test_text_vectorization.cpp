// Keras' TextVectorization defaults on plain strings: standardization, whitespace split, the
// adapted vocabulary's order (ties included), OOV and padding. Expected values derived by hand
// from Keras' rules (keras/src/layers/preprocessing/text_vectorization.py, index_lookup.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mirror/data/text_vectorization.h"
#include "mirror/util/error.h"

namespace mirror {
namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  for (auto t : keras_split_whitespace(text)) out.emplace_back(t);
  return out;
}

TEST(TextVectorization, StandardizeLowersAsciiAndDeletesAsciiPunctuation) {
  EXPECT_EQ(keras_standardize("Hello, World!"), "hello world");
  EXPECT_EQ(keras_standardize("don't stop-me_now (1.5%)"), "dont stopmenow 15");
  // Every one of Python's string.punctuation goes, nothing else ASCII does.
  EXPECT_EQ(keras_standardize("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"), "");
  EXPECT_EQ(keras_standardize("AZaz09 \t\n"), "azaz09 \t\n");
  EXPECT_EQ(keras_standardize("[UNK]"), "unk");
}

TEST(TextVectorization, StandardizeLeavesNonAsciiAlone) {
  // tf.strings.lower without an encoding is ASCII-only: É, Σ and Ä keep their case; Unicode
  // punctuation (em dash, curly quotes, inverted exclamation) is not in Keras' regex.
  EXPECT_EQ(keras_standardize("ÉCOLE Straße ΣΑΣ Ärger"), "École straße ΣΑΣ Ärger");
  EXPECT_EQ(keras_standardize("“Quote”—¡Hola!"), "“quote”—¡hola");
}

TEST(TextVectorization, SplitsOnRunsOfAsciiWhitespaceOnly) {
  EXPECT_EQ(split("  a\tb\n\nc\vd\fe\rf  "), (std::vector<std::string>{"a", "b", "c", "d", "e", "f"}));
  EXPECT_TRUE(split("").empty());
  EXPECT_TRUE(split(" \n\t ").empty());
  // A no-break space (U+00A0) and an ideographic space (U+3000) are not ASCII whitespace.
  EXPECT_EQ(split("a\u00a0b c\u3000d"), (std::vector<std::string>{"a\u00a0b", "c\u3000d"}));
}

TEST(TextVectorization, VocabularyByCountThenTokensDescending) {
  TextVocabularyBuilder b;
  b.add("b a c a");
  b.add("B d");  // "B" is "b" after lowering
  // counts: a 2, b 2, c 1, d 1; ties in descending byte order (np.lexsort(...)[::-1]).
  EXPECT_EQ(b.vocabulary(0), (std::vector<std::string>{"", "[UNK]", "b", "a", "d", "c"}));
  // max_tokens counts padding and OOV.
  EXPECT_EQ(b.vocabulary(4), (std::vector<std::string>{"", "[UNK]", "b", "a"}));
  EXPECT_EQ(b.vocabulary(2), (std::vector<std::string>{"", "[UNK]"}));
  EXPECT_EQ(b.vocabulary(100).size(), 6u);
}

TEST(TextVectorization, TiesCompareBytesSoNonAsciiComesFirst) {
  TextVocabularyBuilder b;
  b.add("z é zz a É");  // é is 0xC3 0xA9, above every ASCII byte; É stays distinct from é
  EXPECT_EQ(b.vocabulary(0), (std::vector<std::string>{"", "[UNK]", "é", "É", "zz", "z", "a"}));
}

TEST(TextVectorization, LiteralUnkCannotCollideWithTheOovToken) {
  TextVocabularyBuilder b;
  b.add("[UNK] [UNK] x");
  EXPECT_EQ(b.vocabulary(0), (std::vector<std::string>{"", "[UNK]", "unk", "x"}));
}

TEST(TextVectorization, BadMaxTokensIsAConfigError) {
  TextVocabularyBuilder b;
  EXPECT_THROW(b.vocabulary(1), ConfigError);
  EXPECT_THROW(b.vocabulary(-3), ConfigError);
}

TEST(TextVectorization, UnknownTokensMapToOneAndPaddingGoesAtTheEnd) {
  const TextVectorizer v({"", "[UNK]", "the", "cat"});
  EXPECT_EQ(v.ids("The dog, the CAT."), (std::vector<int64_t>{2, 1, 2, 3}));
  EXPECT_TRUE(v.ids("").empty());
  EXPECT_EQ(TextVectorizer::fit_length(v.ids("cat dog"), 5), (std::vector<int64_t>{3, 1, 0, 0, 0}));
  EXPECT_EQ(TextVectorizer::fit_length(v.ids("the cat the cat"), 3), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(TextVectorizer::fit_length({}, 2), (std::vector<int64_t>{0, 0}));
}

TEST(TextVectorization, VocabularyMustStartWithPaddingAndOov) {
  EXPECT_THROW(TextVectorizer({"the"}), ConfigError);
  EXPECT_THROW(TextVectorizer({"", "[UNK]", "a", "a"}), ConfigError);
  EXPECT_THROW(TextVectorizer({"", "[UNK]", ""}), ConfigError);
}

TEST(TextVectorization, FindsTheFirstByteThatIsNotUtf8) {
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("é € 𝄞 \xf4\x8f\xbf\xbf"), std::nullopt);  // U+10FFFF is the last
  EXPECT_EQ(first_invalid_utf8("caf\xe9 au lait"), 3u);                   // Latin-1 é
  EXPECT_EQ(first_invalid_utf8("ab\xff"), 2u);
  EXPECT_EQ(first_invalid_utf8("\xc0\x80"), 0u);            // overlong NUL
  EXPECT_EQ(first_invalid_utf8("x\xe0\x80\xaf"), 1u);       // overlong '/'
  EXPECT_EQ(first_invalid_utf8("\xed\xa0\x80"), 0u);        // a surrogate
  EXPECT_EQ(first_invalid_utf8("\xf4\x90\x80\x80"), 0u);    // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("ok\xe2\x82"), 2u);          // cut short at the end
  EXPECT_EQ(first_invalid_utf8("\x80"), 0u);                // a lone continuation byte
  EXPECT_EQ(first_invalid_utf8(std::string("a\0b", 3)), std::nullopt);  // NUL is UTF-8
}

}  // namespace
}  // namespace mirror
