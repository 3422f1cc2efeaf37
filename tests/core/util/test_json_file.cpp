// The one JSON entry point: size and nesting checked before a tree is built, and every reader of
// JSON files going through it, so that a crafted file (120 KB of '[' crashed each of them with a
// stack overflow) is refused with its path and the reason, and the rest of what is read survives.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mirror/data/keras_datasets.h"
#include "mirror/model/layer_spec.h"
#include "mirror/runs/evaluations.h"
#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "test_helpers.h"
#include "test_paths.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::TempDir;
using mirror::testing::write_file;

namespace {
constexpr int kDeep = 100'000;  // 200 KB of brackets: far past the 120 KB that crashed

// [[[ ... ]]] nested kDeep levels, balanced, so a parser without a depth limit builds it whole.
std::string deep_array(int levels = kDeep) { return std::string(static_cast<size_t>(levels), '[') + std::string(static_cast<size_t>(levels), ']'); }
// {"a":{"a": ... 1 ... }} nested kDeep levels.
std::string deep_object(int levels = kDeep) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += "{\"a\":";
  return s + "1" + std::string(static_cast<size_t>(levels), '}');
}
// The refusal's end: how deep varies with what wraps the brackets.
const std::string kDeepMessage = "levels deep; the limit is 256";

struct DeepJsonEnv {
  DeepJsonEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~DeepJsonEnv() { unsetenv(name_); }
  const char* name_;
};

nlohmann::json two_run_lesson() {
  return {{"title", "Two learning rates"},
          {"text", {"One paragraph."}},
          {"runs", {{{"label", "a"}, {"preset", "spirals-mlp"}}, {{"label", "b"}, {"preset", "spirals-mlp"}}}}};
}
}  // namespace

TEST(JsonFile, NestingIsMeasuredOutsideStringsAsAParserWouldBuildIt) {
  EXPECT_EQ(json_nesting_depth("1"), 0);
  EXPECT_EQ(json_nesting_depth(R"({"a": [1, {"b": []}]})"), 4);
  EXPECT_EQ(json_nesting_depth(R"(["[[[[", "\"[[[", {}])"), 2);  // brackets in strings, escaped quotes
  EXPECT_EQ(json_nesting_depth(deep_array()), kDeep);
  EXPECT_EQ(json_nesting_depth("[]][[[[[[[[[[["), 1);  // a parser stops at the unbalanced bracket
}

TEST(JsonFile, TooDeepOrTooLargeIsRefusedBeforeParsingWithTheReason) {
  const std::string deep = error_of<DataError>([] { parse_json_text(deep_object(), "here.json", kRunJson); });
  EXPECT_EQ(deep, "here.json is nested 100,000 levels deep; the limit is 256");
  EXPECT_NO_THROW(parse_json_text(deep_array(kMaxJsonDepth), "x", kRunJson));
  EXPECT_THROW(parse_json_text(deep_array(kMaxJsonDepth + 1), "x", kRunJson), DataError);
  // The kind says which error: what a person chose is a ConfigError.
  EXPECT_THROW(parse_json_text(deep_array(), "m.json", kModelFileJson), ConfigError);
  const std::string big(kLessonJson.max_bytes + 1, ' ');
  EXPECT_EQ(error_of<ConfigError>([&] { parse_json_text(big, "l.json", kLessonJson); }),
            "l.json is 1.0 MiB; a lesson is at most 1 MiB");
  EXPECT_NE(error_of<DataError>([] { parse_json_text("{\"a\": ", "cut.json", kRunJson); }).find("cut.json is not valid JSON ("),
            std::string::npos);
}

// nlohmann's parser stops at a NUL byte, and dropped what followed without a word: "5\0{...}"
// read as 5 (found by fuzz_json, whose depth check saw the brackets after the NUL).
TEST(JsonFile, ANulByteIsRefusedNotTakenForTheEnd) {
  using namespace std::string_literals;
  EXPECT_EQ(error_of<DataError>([] { parse_json_text("5\0{\"a\": [1]}"s, "nul.json", kRunJson); }),
            "nul.json is not valid JSON (a NUL byte at offset 1; is it a binary file?)");
  EXPECT_EQ(parse_json_text("{\"a\": \"x\\u0000y\"}", "escaped.json", kRunJson).at("a").get<std::string>(), "x\0y"s);
  // NULs to the end, as a crash can leave them after a file's last write, end it.
  EXPECT_EQ(parse_json_text("{\"a\": 5}\n\0\0\0"s, "padded.json", kRunJson).at("a"), 5);
}

TEST(JsonFile, AFileIsReadWithinItsLimitAndADirectoryOrAMissingFileIsRefused) {
  TempDir dir;
  write_file(dir.path() / "ok.json", R"({"a": [1, 2]})");
  EXPECT_EQ(parse_json_file(dir / "ok.json", kRunJson).at("a").size(), 2u);
  write_file(dir.path() / "big.json", std::string(kLessonJson.max_bytes * 3, ' '));
  EXPECT_EQ(error_of<ConfigError>([&] { parse_json_file(dir / "big.json", kLessonJson); }),
            dir / "big.json" + " is 3 MiB; a lesson is at most 1 MiB");
  std::filesystem::create_directory(dir.path() / "run.json");
  EXPECT_EQ(error_of<DataError>([&] { parse_json_file(dir / "run.json", kRunJson); }),
            dir / "run.json" + " is a directory, not a run.json");
  EXPECT_NE(error_of<DataError>([&] { parse_json_file(dir / "none.json", kRunJson); }).find(dir / "none.json" + " does not exist"),
            std::string::npos);
}

TEST(JsonFile, LinesAreParsedOneByOneAndALongOrDeepLineIsSkippedWithItsNumber) {
  TempDir dir;
  const std::string huge(kMetricsLineJson.max_bytes + 10, '1');
  write_file(dir.path() / "m.jsonl", "{\"a\":1}\n\n" + deep_array() + "\n" + huge + "\n{\"a\":2}\n{\"a\":");
  std::vector<std::string> seen;
  for_each_json_line(
      dir / "m.jsonl", kMetricsLineJson,
      [&](int64_t line, nlohmann::json v) { seen.push_back(std::to_string(line) + ":" + v.dump()); },
      [&](int64_t line, const std::string& reason) { seen.push_back(std::to_string(line) + ":" + reason); });
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[0], "1:{\"a\":1}");
  EXPECT_EQ(seen[1], "3:the line is nested 100,000 " + kDeepMessage);
  EXPECT_EQ(seen[2], "4:the line is longer than a metrics line may be (at most 1 MiB)");
  EXPECT_EQ(seen[3], "5:{\"a\":2}");
  EXPECT_EQ(seen[4].rfind("6:the line is not valid JSON", 0), 0u) << seen[4];
}

// Each reader: a deep document is refused (or skipped) with the reason, and nothing crashes.
TEST(DeepJson, AModelFileIsRefusedWithItsPath) {
  TempDir dir;
  // Deep where the reader copies or prints a value: a SIGSEGV before the limit.
  for (const std::string& text : {deep_array(), R"({"layers": [{"type": "Dense", "units": )" + deep_object() + "}]}"}) {
    write_file(dir.path() / "model.json", text);
    const std::string e = error_of<ConfigError>([&] { load_model_file(dir / "model.json"); });
    EXPECT_NE(e.find(dir / "model.json"), std::string::npos) << e;
    EXPECT_NE(e.find(kDeepMessage), std::string::npos) << e;
  }
}

TEST(DeepJson, ARunWithADeepOrDirectoryRunJsonIsListedAsUnreadableAmongTheOthers) {
  TempDir root;
  for (const char* name : {"a-good", "b-deep", "c-directory", "d-deep-object"})
    std::filesystem::create_directories(root.path() / name);
  write_file(root.path() / "a-good" / "run.json", R"({"status": "finished"})");
  write_file(root.path() / "b-deep" / "run.json", deep_array());
  std::filesystem::create_directories(root.path() / "c-directory" / "run.json");
  write_file(root.path() / "d-deep-object" / "run.json", deep_object());
  const auto runs = list_runs(root.str());
  ASSERT_EQ(runs.size(), 4u);
  std::map<std::string, RunRecord> by_name;
  for (const auto& r : runs) by_name[r.name] = r;
  EXPECT_EQ(by_name["a-good"].status, "finished");
  for (const char* broken : {"b-deep", "c-directory", "d-deep-object"}) {
    EXPECT_EQ(by_name[broken].status, "unreadable") << broken;
    ASSERT_FALSE(by_name[broken].warnings.empty()) << broken;
  }
  EXPECT_NE(by_name["b-deep"].warnings[0].find(kDeepMessage), std::string::npos) << by_name["b-deep"].warnings[0];
  EXPECT_NE(by_name["c-directory"].warnings[0].find("is a directory"), std::string::npos) << by_name["c-directory"].warnings[0];
  // Finding a lesson's recorded runs walks the same folder.
  EXPECT_TRUE(recorded_lesson_runs(root.str(), lesson_from_json(two_run_lesson(), "two", "test")).empty());
}

TEST(DeepJson, ADeepMetricsLineOrMetaJsonIsSkippedAndTheRestOfTheRunRead) {
  TempDir dir;
  write_file(dir.path() / "run.json", R"({"status": "finished"})");
  write_file(dir.path() / "meta.json", deep_object());
  write_file(dir.path() / "metrics.jsonl", deep_array() + "\n" +
                                               R"({"type":"step","epoch":1,"global_step":1,"samples":4,"loss":0.5})" "\n");
  const RunRecord r = read_run(dir.str());
  EXPECT_EQ(r.steps.size(), 1u);
  std::string all;
  for (const auto& w : r.warnings) all += w + "\n";
  EXPECT_NE(all.find("1 malformed line"), std::string::npos) << all;
  EXPECT_NE(all.find("meta.json is nested 100,000 " + kDeepMessage), std::string::npos) << all;
}

TEST(DeepJson, ADeepEvaluationLineIsSkippedWithAWarning) {
  TempDir dir;
  // The reader prints a bad probability in its message: a SIGSEGV before the limit.
  const std::string printed = R"({"type": "evaluation", "epoch": 1, "global_step": 1, "classes": 1, "confusion": [[1]],)"
                              R"( "examples": [{"index": 0, "label": 0, "classes": [0], "probabilities": [)" +
                              deep_object() + "]}]}";
  write_file(dir / kEvaluationsFile, printed + "\n" + deep_array() + "\n");
  std::vector<std::string> warnings;
  EXPECT_TRUE(read_evaluations(dir.str(), &warnings).empty());
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("line 1 skipped: the line is nested 100,004 " + kDeepMessage), std::string::npos) << warnings[0];
}

TEST(DeepJson, ABrokenLessonAmongGoodOnesIsReportedAndTheOthersLoad) {
  TempDir own;
  DeepJsonEnv folder("MIRROR_LESSONS_DIR", own.str());
  write_file(own.path() / "a-good.json", two_run_lesson().dump());
  write_file(own.path() / "b-deep.json", deep_array());
  nlohmann::json copied = two_run_lesson();  // a run's settings are copied: a SIGSEGV before the limit
  copied["runs"][0]["set"] = nullptr;
  write_file(own.path() / "c-deep-settings.json", copied.dump().replace(copied.dump().find("null"), 4, deep_object()));
  std::filesystem::create_directory(own.path() / "d-directory.json");
  std::vector<std::string> warnings;
  const auto all = lessons(&warnings);
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const Lesson& l) { return l.name == "a-good"; }));
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find((own.path() / "b-deep.json").string() + " is nested 100,000 " + kDeepMessage), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[2].find("is a directory"), std::string::npos) << warnings[2];
  EXPECT_NE(error_of<ConfigError>([&] { find_lesson((own.path() / "b-deep.json").string()); }).find(kDeepMessage),
            std::string::npos);
}

TEST(DeepJson, ADeepWordIndexIsIgnoredLikeAnUnreadableOne) {
#ifndef MIRROR_WITH_ZIP
  GTEST_SKIP() << "built with MIRROR_WITH_ZIP=OFF";
#endif
  TempDir dir;
  std::filesystem::copy_file(mirror::testing::fixtures_dir() + "/keras/reuters_small.npz", dir.path() / "reuters.npz");
  write_file(dir.path() / "reuters_word_index.json", deep_object());
  KerasDatasetOptions o;
  o.data_dir = dir.str();
  o.allow_download = false;
  EXPECT_EQ(load_keras_text_dataset(o)->size(Split::kTrain), 32);
}

TEST(DeepJson, ADeepSweepValueIsAWordNotACrash) {
  const TrainConfig base = config_from_preset("spirals-mlp");
  const std::string e = error_of<ConfigError>([&] { parse_sweep_axis("lr=" + deep_array(), base); });
  EXPECT_NE(e.find("is not a number"), std::string::npos) << e.substr(0, 200);
}
