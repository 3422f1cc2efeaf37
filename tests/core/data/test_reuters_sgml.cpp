// Raw Reuters-21578 SGML built the way Keras' original script built reuters.npz: on the hand-made
// files in tests/fixtures/reuters_sgml (see EXPECTED.md there), on small texts that show each of
// the script's quirks, and, where MIRROR_REUTERS21578_DIR names a copy of the real distribution,
// against published facts about Keras' file.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "mirror/data/keras_datasets.h"
#include "mirror/data/reuters_sgml.h"
#include "mirror/util/error.h"
#include "test_paths.h"

using namespace mirror;

namespace {
const std::string kDir = mirror::testing::fixtures_dir() + "/reuters_sgml";

int64_t rank_of(const RawReuters& r, const std::string& word) {
  const auto it = std::find(r.words.begin(), r.words.end(), word);
  return it == r.words.end() ? -1 : static_cast<int64_t>(it - r.words.begin()) + 1;
}

std::string wire(const std::string& topics, const std::string& text) {
  return "<REUTERS NEWID=\"1\">\n<TOPICS>" + topics + "</TOPICS>\n<PLACES><D>usa</D></PLACES>\n<TEXT>" + text +
         "</TEXT>\n</REUTERS>\n";
}
}  // namespace

TEST(ReutersSgml, TheScriptsQuirksOneWireAtATime) {
  // A wire with several topics is kept under its first: the script cut the topics at the first
  // "</", which is the first topic's </D>, so its test for "</D><D>" never held.
  auto w = keras_reuters_wires(wire("<D>grain</D><D>wheat</D>", "<BODY>Wheat up.</BODY>"), "t");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].topic, "grain");
  EXPECT_EQ(w[0].text, "Wheat up.");
  // A wire without topics is skipped, but its body is still there for the wire before it.
  w = keras_reuters_wires(wire("<D>earn</D>", "<TITLE>BRIEF</TITLE>") + wire("", "<BODY>Stocks mixed.</BODY>"), "t");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].topic, "earn");
  EXPECT_EQ(w[0].text, "Stocks mixed.");  // the next <BODY> in the file, whoever's it is
  // With no <BODY> left in the file, find() gave -1 and the text started 5 characters after
  // <TOPICS>: "<D>crude</D>" yields "ude".
  w = keras_reuters_wires(wire("<D>crude</D>", "<TITLE>OIL</TITLE>"), "t");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].text, "ude");
  // Entities are not decoded; the tokenizer then splits them on & and ;.
  w = keras_reuters_wires(wire("<D>acq</D>", "<BODY>AT&amp;T bought &lt;Beta>.\n&#3;</BODY>"), "t");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(keras_text_to_words(w[0].text), (std::vector<std::string>{"at", "amp", "t", "bought", "lt", "beta", "3"}));
}

TEST(ReutersSgml, KeepsEveryWireWithATopicUnderItsFirstTopic) {
  const RawReuters r = load_reuters_sgml_dir(kDir, /*min_wires_per_topic=*/3);
  EXPECT_EQ(r.wires_with_topics, 13);
  EXPECT_EQ(r.topic_names, (std::vector<std::string>{"acq", "earn", "grain"}));
  EXPECT_EQ(r.y, (std::vector<int64_t>{0, 1, 2, 1, 1, 0, 1, 0, 1, 2, 2}));
  std::vector<size_t> lengths;
  for (const auto& x : r.x) lengths.push_back(x.size());
  EXPECT_EQ(lengths, (std::vector<size_t>{31, 25, 19, 26, 26, 33, 19, 20, 22, 14, 1}));
  EXPECT_EQ(r.words.size(), 109u);
  // NEWID 6 has no body and takes NEWID 7's; NEWID 14, the last wire, has none left to take.
  EXPECT_EQ(r.x[3], r.x[4]);
  EXPECT_EQ(r.x[10], (std::vector<int64_t>{rank_of(r, "ain")}));
  EXPECT_EQ(rank_of(r, "blah"), -1);  // text outside <BODY> is never read
}

TEST(ReutersSgml, RanksWordsLikeKerasTokenizerOnPython27) {
  const RawReuters r = load_reuters_sgml_dir(kDir, 3);
  EXPECT_EQ(rank_of(r, "3"), 1);    // 13: eleven "&#3;" and two literal
  EXPECT_EQ(rank_of(r, "mln"), 2);  // 12
  // "reuter", "said" and "the" all occur 10 times; a dict of Python 2.7 lists them in this order.
  EXPECT_EQ(rank_of(r, "reuter"), 3);
  EXPECT_EQ(rank_of(r, "said"), 4);
  EXPECT_EQ(rank_of(r, "the"), 5);
  EXPECT_EQ(rank_of(r, "lt"), 25);
  EXPECT_EQ(rank_of(r, "amp"), 27);
  EXPECT_EQ(rank_of(r, "t's"), 54);
  // Python 2 lower-cased byte strings in A-Z only: É (0xC9) stays upper case.
  EXPECT_EQ(rank_of(r, "z\xc3\xbcrich"), 31);
  EXPECT_EQ(rank_of(r, "caf\xc3\xa9"), 32);
  EXPECT_EQ(rank_of(r, "\xc3\x89tat"), 34);
  EXPECT_EQ(r.x[0], (std::vector<int64_t>{25, 58, 30, 4, 20, 46, 9, 38, 105, 99, 29, 19, 22, 2, 12, 13, 91, 5, 18, 4,
                                          5, 64, 96, 68, 9, 70, 72, 71, 83, 3, 1}));
  EXPECT_EQ(r.x[8], (std::vector<int64_t>{63, 16, 74, 11, 6, 50, 11, 10, 7, 26, 2, 6, 7, 22, 2, 81, 66, 85, 77, 47, 3, 1}));
}

TEST(ReutersSgml, Python27DictOrder) {
  // Python 2.7 on 64-bit: hash('a') == 12416037344 and {'a': 1, 'b': 2, 'c': 3} prints as
  // {'a': 1, 'c': 3, 'b': 2}.
  EXPECT_EQ(python27_string_hash("a"), 12416037344ULL);
  EXPECT_EQ(python27_dict_order({"a", "b", "c", "b"}), (std::vector<std::string>{"a", "c", "b"}));
  // Growing the table keeps every key once.
  std::vector<std::string> many;
  for (int i = 0; i < 1000; ++i) many.push_back(std::to_string(i * 7919 % 1000));
  auto order = python27_dict_order(many);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order.size(), 1000u);
  EXPECT_EQ(std::unique(order.begin(), order.end()), order.end());
}

TEST(ReutersSgml, TokenizerFollowsKerasDefaults) {
  EXPECT_EQ(keras_text_to_words("Hello, World!  It's 5.5\tpct\r\nok \xc9t\xe9"),
            (std::vector<std::string>{"hello", "world", "it's", "5", "5", "pct\r", "ok", "\xc9t\xe9"}));
}

TEST(ReutersSgml, AFileCutInHalfIsReported) {
  std::ifstream in(kDir + "/reut2-000.sgm", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string cut = text.substr(0, text.rfind("</REUTERS>") - 20);
  try {
    keras_reuters_wires(cut, "reut2-000.sgm");
    FAIL() << "a record that is never closed must be reported";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_reuters_sgml_dir(mirror::testing::fixtures_dir() + "/keras", 3), DataError);  // no .sgm there
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
  EXPECT_EQ(d->size(Split::kTrain), 8);  // int(11 * 0.75)
  EXPECT_EQ(d->size(Split::kValidation), 3);
  EXPECT_EQ(d->info().class_names, (std::vector<std::string>{"acq", "earn", "grain"}));
  EXPECT_EQ(d->info().input_shape, std::vector<int64_t>{40});
  ASSERT_TRUE(d->info().vocabulary);
  // Word rank r is token id r + 3; "3" (rank 1) is id 4, "reuter" (rank 3) id 6.
  EXPECT_EQ(decode_tokens(d->info(), {1, 4, 6, 2}), "<start> 3 reuter <oov>");
}

// The real distribution (reut2-000.sgm to reut2-021.sgm) against what is published about Keras'
// reuters.npz: Keras' documentation (11,228 wires, 46 topics), the topic names and per-topic
// train/test counts recovered in keras-team/keras issue 12072 (SteffenBauer/KerasTools,
// Reuters_Analysis), and the first training sequence and word indexes that countless tutorials
// print from reuters.load_data(num_words=10000) and reuters.get_word_index().
TEST(ReutersSgml, RealDistributionIsKerasFile) {
  const char* dir = std::getenv("MIRROR_REUTERS21578_DIR");
  if (!dir || !*dir) GTEST_SKIP() << "set MIRROR_REUTERS21578_DIR to a folder with the 22 reut2-*.sgm files";
  RawReuters r = load_reuters_sgml_dir(dir);
  EXPECT_EQ(r.x.size(), 11228u);
  EXPECT_EQ(r.topic_names, reuters_topic_names());
  EXPECT_EQ(r.words.size(), 30979u);
  const std::map<std::string, int64_t> published = {
      {"the", 1},         {"four", 185},        {"wednesday", 1220},  {"grains", 1642},     {"duffour", 7593},
      {"heublein", 8352}, {"woods", 8803},      {"hermann", 8804},    {"mdbl", 10996},      {"refunding", 10997},
      {"degussa", 12089}, {"wooden", 12090},    {"hanging", 13796},   {"highveld", 13797},  {"fawc", 16260},
      {"tcby", 16261},    {"localized", 20672}, {"sation", 20673},    {"chanthaburi", 20675}, {"passsengers", 20676},
      {"stipulate", 20677}, {"broiler", 20680}, {"0053", 20681},      {"screaming", 20713}, {"northerly", 30979}};
  for (const auto& [word, rank] : published) EXPECT_EQ(rank_of(r, word), rank) << word;

  KerasTextOptions o;
  o.num_words = 10000;
  const auto d = keras_reuters_load_data(r.x, r.y, o);
  ASSERT_EQ(d.train.x.size(), 8982u);
  ASSERT_EQ(d.test.x.size(), 2246u);
  EXPECT_EQ(d.train.x[0],
            (std::vector<int64_t>{1,   2,   2,    8,   43,  10,  447, 5,   25,  207, 270, 5,   3095, 111, 16,  369, 186, 90,
                                  67,  7,   89,   5,   19,  102, 6,   19,  124, 15,  90,  67,  84,   22,  482, 26,  7,   48,
                                  4,   49,  8,    864, 39,  209, 154, 6,   151, 6,   83,  11,  15,   22,  155, 11,  15,  7,
                                  48,  9,   4579, 1005, 504, 6,  258, 6,   272, 11,  15,  22,  134,  44,  11,  15,  16,  8,
                                  197, 1245, 90,  67,  52,  29,  209, 30,  32,  132, 6,   109, 15,  17,  12}));
  EXPECT_EQ(d.train.y[0], 3);
  EXPECT_EQ(d.train.x[1].size(), 56u);
  EXPECT_EQ(d.train.x[11].size(), 59u);
  const std::vector<int64_t> train_counts = {55, 432, 74, 3159, 1949, 17, 48, 16, 139, 101, 124, 390, 49, 172, 26, 20,
                                             444, 39, 66, 549, 269, 100, 15, 41, 62, 92, 24, 15, 48, 19, 45, 39, 32,
                                             11, 50, 10, 49, 19, 19, 24, 36, 30, 13, 21, 12, 18};
  const std::vector<int64_t> test_counts = {12, 105, 20, 813, 474, 5, 14, 3, 38, 25, 30, 83, 13, 37, 2, 9, 99, 12, 20,
                                            133, 70, 27, 7, 12, 19, 31, 8, 4, 10, 4, 12, 13, 10, 5, 7, 6, 11, 2, 3, 5,
                                            10, 8, 3, 6, 5, 1};
  std::vector<int64_t> train(46), test(46);
  for (int64_t y : d.train.y) ++train.at(static_cast<size_t>(y));
  for (int64_t y : d.test.y) ++test.at(static_cast<size_t>(y));
  EXPECT_EQ(train, train_counts);
  EXPECT_EQ(test, test_counts);
}
