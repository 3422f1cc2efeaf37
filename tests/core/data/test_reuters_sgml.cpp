// Raw Reuters-21578 SGML built the way Keras' original preprocessing built reuters.npz, on the
// hand-made files in tests/fixtures/reuters_sgml (see EXPECTED.md there).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mirror/data/keras_datasets.h"
#include "mirror/data/reuters_sgml.h"
#include "mirror/util/error.h"

using namespace mirror;
namespace fs = std::filesystem;

namespace {
const std::string kDir = std::string(MIRROR_FIXTURES_DIR) + "/reuters_sgml";

int64_t rank_of(const RawReuters& r, const std::string& word) {
  const auto it = std::find(r.words.begin(), r.words.end(), word);
  return it == r.words.end() ? -1 : static_cast<int64_t>(it - r.words.begin()) + 1;
}
}  // namespace

TEST(ReutersSgml, KeepsSingleTopicWiresOfFrequentTopicsLabelledByFirstAppearance) {
  const RawReuters r = load_reuters_sgml_dir(kDir, /*min_wires_per_topic=*/3);
  EXPECT_EQ(r.topic_names, (std::vector<std::string>{"acq", "earn"}));
  EXPECT_EQ(r.y, (std::vector<int64_t>{0, 1, 1, 1, 0, 1, 0, 1}));
  std::vector<size_t> lengths;
  for (const auto& x : r.x) lengths.push_back(x.size());
  EXPECT_EQ(lengths, (std::vector<size_t>{31, 25, 0, 26, 33, 19, 20, 22}));  // the third wire has no BODY
  EXPECT_EQ(r.words.size(), 95u);
}

TEST(ReutersSgml, TokenizesLikeKerasWithoutDecodingEntities) {
  const RawReuters r = load_reuters_sgml_dir(kDir, 3);
  // Keras read the raw SGML: "&#3;" ends every body and becomes the word "3", "&lt;" the word
  // "lt", "AT&amp;T" the words "at", "amp", "t" (decoded Keras samples end in "reuter 3").
  EXPECT_EQ(rank_of(r, "mln"), 1);     // 10 occurrences
  EXPECT_EQ(rank_of(r, "3"), 2);       // 7 from &#3; + 2 literal
  EXPECT_EQ(rank_of(r, "reuter"), 3);  // 7, first seen before "vs" (also 7): ties by first appearance
  EXPECT_EQ(rank_of(r, "vs"), 4);
  EXPECT_EQ(rank_of(r, "lt"), 17);
  EXPECT_EQ(rank_of(r, "amp"), 27);
  EXPECT_EQ(rank_of(r, "t's"), 70);
  // Latin-1 bytes become UTF-8, upper case included (0xC9 É -> é).
  EXPECT_EQ(rank_of(r, "z\xc3\xbcrich"), 51);
  EXPECT_EQ(rank_of(r, "caf\xc3\xa9"), 53);
  EXPECT_EQ(rank_of(r, "\xc3\xa9tat"), 59);
  EXPECT_EQ(r.x[0], (std::vector<int64_t>{17, 33, 18, 5, 13, 34, 8, 19, 35, 36, 20, 21, 14, 1, 9, 22,
                                          37, 10, 23, 5, 10, 38, 39, 40, 8, 41, 42, 43, 44, 3, 2}));
  EXPECT_EQ(r.x[7], (std::vector<int64_t>{88, 15, 89, 7, 4, 90, 7, 11, 6, 32, 1, 4, 6, 14, 1, 91, 92, 93, 94, 95, 3, 2}));
}

TEST(ReutersSgml, TokenizerFollowsKerasDefaults) {
  EXPECT_EQ(keras_text_to_words("Hello, World!  It's 5.5\tpct\r\nok"),
            (std::vector<std::string>{"hello", "world", "it's", "5", "5", "pct\r", "ok"}));
}

TEST(ReutersSgml, AFileCutInHalfIsReported) {
  std::ifstream in(kDir + "/reut2-000.sgm", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string cut = text.substr(0, text.rfind("</REUTERS>") - 20);
  try {
    parse_reuters_sgml(cut, "reut2-000.sgm");
    FAIL() << "a record that is never closed must be reported";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_reuters_sgml_dir(std::string(MIRROR_FIXTURES_DIR) + "/keras", 3), DataError);  // no .sgm there
}

TEST(ReutersSgml, DirectoryOfSgmlLoadsAsTheReutersDataset) {
  KerasDatasetOptions o;
  o.data_dir = kDir;
  o.allow_download = false;
  o.pad.maxlen = 40;
  o.load.test_split = 0.25;
  // The fixture's topics have fewer than Keras' 15 wires each, so nothing survives the default.
  EXPECT_THROW(load_keras_text_dataset(o), DataError);
  o.min_wires_per_topic = 3;
  const auto d = load_keras_text_dataset(o);
  EXPECT_EQ(d->size(Split::kTrain), 6);  // int(8 * 0.75)
  EXPECT_EQ(d->size(Split::kValidation), 2);
  EXPECT_EQ(d->info().class_names, (std::vector<std::string>{"acq", "earn"}));
  EXPECT_EQ(d->info().input_shape, std::vector<int64_t>{40});
  ASSERT_TRUE(d->info().vocabulary);
  // Word rank r is token id r + 3; "mln" (rank 1) is id 4.
  EXPECT_EQ(decode_tokens(d->info(), {1, 4, 6, 2}), "<start> mln reuter <oov>");
}
