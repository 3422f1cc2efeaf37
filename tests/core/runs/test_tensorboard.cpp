// Run records: TensorBoard event files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/tensorboard.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
namespace fs = std::filesystem;

namespace {
// CRC-32C bit by bit, straight from the definition (reflected polynomial 0x82F63B78): an
// implementation independent of the table-driven one under test.
uint32_t reference_crc32c(const std::string& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}
uint32_t reference_masked(const std::string& bytes) {
  const uint32_t c = reference_crc32c(bytes);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}
std::string le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string le64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
}  // namespace

TEST(TensorBoard, Crc32cMatchesThePublishedCheckValueAndABitwiseReference) {
  EXPECT_EQ(crc32c("123456789", 9), 0xE3069283u);  // the standard CRC-32C check value
  std::mt19937 gen(5);
  for (int n : {0, 1, 7, 64, 1000}) {
    std::string s(static_cast<size_t>(n), '\0');
    for (auto& c : s) c = static_cast<char>(gen());
    EXPECT_EQ(crc32c(s.data(), s.size()), reference_crc32c(s)) << n;
    EXPECT_EQ(masked_crc32c(s.data(), s.size()), reference_masked(s)) << n;
  }
}

TEST(TensorBoard, RecordsHaveTheExactTfRecordLayout) {
  // The file-version event at wall time 1.5, step 0, assembled by hand from the Event proto.
  std::string event = std::string("\x09", 1) + std::string("\x00\x00\x00\x00\x00\x00\xf8\x3f", 8) +
                      std::string("\x10\x00", 2) + "\x1a\x0d" + "brain.Event:2";
  std::string expected = le64(event.size()) + le32(reference_masked(le64(event.size()))) + event + le32(reference_masked(event));
  EXPECT_EQ(tensorboard_record(1.5, 0, "", 0), expected);
  // A scalar: Event{wall_time=2, step=300, summary{value{tag="train/loss", simple_value=0.25}}}.
  std::string value("\x0a\x0a");
  value += "train/loss";
  value += '\x15';
  value.append("\x00\x00\x80\x3e", 4);  // 0.25f
  std::string summary(1, '\x0a');
  summary += static_cast<char>(value.size());
  summary += value;
  std::string scalar(1, '\x09');
  scalar.append("\x00\x00\x00\x00\x00\x00\x00\x40", 8);  // 2.0
  scalar += "\x10\xac\x02\x2a";                          // step 300, then the summary field
  scalar += static_cast<char>(summary.size());
  scalar += summary;
  expected = le64(scalar.size()) + le32(reference_masked(le64(scalar.size()))) + scalar + le32(reference_masked(scalar));
  EXPECT_EQ(tensorboard_record(2.0, 300, "train/loss", 0.25f), expected);
}

TEST(TensorBoard, WriterRoundTripsAndAKilledWriterLosesOnlyItsLastRecord) {
  const auto dir = fs::temp_directory_path() / ("mirror-tb-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(dir);
  std::string path;
  {
    TensorBoardWriter w(dir.string());
    path = w.path();
    for (int64_t s = 1; s <= 5; ++s) {
      StepMetrics m;
      m.global_step = s;
      m.loss = 1.0 / static_cast<double>(s);
      w.on_step(m);
    }
    EpochMetrics e;
    e.has_validation = true;
    e.val_accuracy = 0.75;
    w.on_epoch(e);
  }
  EXPECT_EQ(fs::path(path).filename().string().rfind("events.out.tfevents.", 0), 0u);
  std::string warning;
  auto points = read_tensorboard_scalars(path, &warning);
  EXPECT_TRUE(warning.empty()) << warning;
  ASSERT_EQ(points.size(), 5u * 4 + 5);
  EXPECT_EQ(points[4].tag, "train/loss");
  EXPECT_EQ(points[4].step, 2);
  EXPECT_FLOAT_EQ(points[4].value, 0.5f);
  EXPECT_EQ(points.back().tag, "val/top_k_accuracy");
  const auto val = std::find_if(points.begin(), points.end(), [](const ScalarPoint& p) { return p.tag == "val/accuracy"; });
  ASSERT_NE(val, points.end());
  EXPECT_FLOAT_EQ(val->value, 0.75f);
  // Cut the file inside its last record, as a kill -9 mid-write would.
  fs::resize_file(path, fs::file_size(path) - 7);
  points = read_tensorboard_scalars(path, &warning);
  EXPECT_EQ(points.size(), 5u * 4 + 4);
  EXPECT_NE(warning.find("cut short"), std::string::npos) << warning;
  // A flipped byte is caught by the CRC.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  warning.clear();
  points = read_tensorboard_scalars(path, &warning);
  EXPECT_NE(warning.find("wrong CRC"), std::string::npos) << warning;
  mirror::testing::remove_tree(dir);
}

namespace {
void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
}  // namespace

TEST(RunReader, HalfWrittenFilesOpenWithAWarningAndLoseNothingIntact) {
  const auto root = fs::temp_directory_path() / ("mirror-runs-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(root);
  const auto good = root / "20261130-100000-good";
  fs::create_directories(good);
  write(good / "run.json", R"({"status": "running", "config": {"preset": "p", "seed": 1, "dataset": {"name": "blobs"}}})");
  write(good / "metrics.jsonl",
        "{\"type\":\"step\",\"global_step\":1,\"loss\":2.0}\n"
        "{\"type\":\"step\",\"global_step\":2,\"loss\":1.5}\n"
        "{\"type\":\"epoch\",\"epoch\":1,\"loss\":1.7,\"val_accuracy\":0.6,\"val_loss\":1.1}\n"
        "{\"type\":\"step\",\"global_step\":3,\"loss\":1.4}\n"
        "{\"type\":\"step\",\"global_step\":4,\"lo");  // killed mid-line
  RunRecord r = read_run(good.string());
  EXPECT_EQ(r.status, "running");
  EXPECT_EQ(r.steps.size(), 3u);
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_EQ(r.epochs[0].global_step, 2);
  EXPECT_DOUBLE_EQ(r.best_val_accuracy, 0.6);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("1 malformed line"), std::string::npos);
  // A resumed run: steps after its checkpoint were written twice; the later ones count.
  write(good / "metrics.jsonl", "{\"type\":\"step\",\"global_step\":1,\"loss\":2.0}\n{\"type\":\"step\",\"global_step\":2,\"loss\":9.0}\n"
                                "{\"type\":\"resumed\",\"global_step\":1}\n{\"type\":\"step\",\"global_step\":2,\"loss\":1.5}\n");
  r = read_run(good.string());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(r.steps[1].loss, 1.5);
  // A run.json cut in half: a clear error for that run, listed rather than dropped.
  const auto bad = root / "20261130-110000-bad";
  fs::create_directories(bad);
  write(bad / "run.json", R"({"status": "runn)");
  EXPECT_THROW(read_run(bad.string()), DataError);
  const auto all = list_runs(root.string());
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "20261130-110000-bad");  // newest first
  EXPECT_EQ(all[0].status, "unreadable");
  EXPECT_NE(all[0].warnings[0].find("not valid JSON"), std::string::npos);
  // Comparing: only the settings that differ.
  RunRecord a, b;
  a.run = nlohmann::json::parse(R"({"config": {"seed": 1, "optimizer": {"name": "adam", "learning_rate": 0.01}}})");
  b.run = nlohmann::json::parse(R"({"config": {"seed": 1, "optimizer": {"name": "adam", "learning_rate": 0.1}}})");
  EXPECT_EQ(differing_config_keys({a, b}), std::vector<std::string>{"optimizer.learning_rate"});
  EXPECT_EQ(config_value(b, "optimizer.learning_rate"), "0.1");
  mirror::testing::remove_tree(root);
}
