// Run records: TensorBoard event files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
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
// An Event's bytes framed as one TFRecord, by the reference CRC.
std::string reference_record(const std::string& event) {
  return le64(event.size()) + le32(reference_masked(le64(event.size()))) + event + le32(reference_masked(event));
}
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
  std::string expected = reference_record(event);
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
  expected = reference_record(scalar);
  EXPECT_EQ(tensorboard_record(2.0, 300, "train/loss", 0.25f), expected);
}

TEST(TensorBoard, TensorScalarsHaveTheLayoutTensorFlow2Writes) {
  // Value{tag="epoch_loss", tensor=TensorProto{dtype=DT_FLOAT, tensor_shape={}, float_val=[0.25]},
  //       metadata=SummaryMetadata{plugin_data={plugin_name="scalars"}, data_class=DATA_CLASS_SCALAR}},
  // assembled by hand from TensorBoard's field numbers.
  std::string tensor("\x08\x01\x12\x00\x2a\x04", 6);
  tensor.append("\x00\x00\x80\x3e", 4);  // 0.25f
  const std::string metadata = std::string("\x0a\x09\x0a\x07", 4) + "scalars" + std::string("\x20\x01", 2);
  std::string value = std::string("\x0a\x0a") + "epoch_loss";
  value += '\x42';
  value += static_cast<char>(tensor.size());
  value += tensor;
  value += '\x4a';
  value += static_cast<char>(metadata.size());
  value += metadata;
  std::string summary(1, '\x0a');
  summary += static_cast<char>(value.size());
  summary += value;
  std::string event(1, '\x09');
  event.append("\x00\x00\x00\x00\x00\x00\x00\x40", 8);  // 2.0
  event += "\x10\x03\x2a";                                  // step 3, then the summary field
  event += static_cast<char>(summary.size());
  event += summary;
  const std::string expected = reference_record(event);
  EXPECT_EQ(tensorboard_tensor_record(2.0, 3, "epoch_loss", 0.25f), expected);
}

TEST(TensorBoard, ReadsBothScalarFormsAndDoubleTensors) {
  const auto dir = fs::temp_directory_path() / ("mirror-tb-forms-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(dir);
  fs::create_directories(dir);
  // A run recorded before 0.2 (simple_value), then TensorFlow 2's form, then a double tensor given
  // as raw tensor_content, as other writers may.
  std::string doubles("\x08\x02\x12\x00\x22\x08", 6);
  const double d = 0.125;
  doubles.append(reinterpret_cast<const char*>(&d), 8);
  std::string value = std::string("\x0a\x01") + "d" + '\x42' + static_cast<char>(doubles.size()) + doubles;
  std::string summary = std::string(1, '\x0a') + static_cast<char>(value.size()) + value;
  std::string event = std::string("\x10\x07\x2a", 3) + static_cast<char>(summary.size()) + summary;
  const std::string raw = reference_record(event);
  const auto path = (dir / "events.out.tfevents.1.host").string();
  std::ofstream(path, std::ios::binary) << tensorboard_record(1, 0, "", 0) << tensorboard_record(1, 5, "train/loss", 0.5f)
                                         << tensorboard_tensor_record(1, 6, "epoch_loss", 0.75f) << raw;
  std::string warning;
  const auto points = read_tensorboard_scalars(path, &warning);
  EXPECT_TRUE(warning.empty()) << warning;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].tag, "train/loss");
  EXPECT_FLOAT_EQ(points[0].value, 0.5f);
  EXPECT_EQ(points[1].tag, "epoch_loss");
  EXPECT_EQ(points[1].step, 6);
  EXPECT_FLOAT_EQ(points[1].value, 0.75f);
  EXPECT_EQ(points[2].tag, "d");
  EXPECT_EQ(points[2].step, 7);
  EXPECT_FLOAT_EQ(points[2].value, 0.125f);
  mirror::testing::remove_tree(dir);
}

TEST(TensorBoard, WriterUsesKerasLayoutAndAKilledWriterLosesOnlyItsLastRecord) {
  const auto dir = fs::temp_directory_path() / ("mirror-tb-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(dir);
  std::string train, validation;
  {
    TensorBoardWriter w(dir.string());
    train = w.train_path();
    validation = w.validation_path();
    for (int epoch = 1; epoch <= 2; ++epoch) {
      for (int64_t s = 1; s <= 5; ++s) {
        StepMetrics m;
        m.global_step = (epoch - 1) * 5 + s;
        m.loss = 1.0 / static_cast<double>(m.global_step);
        m.learning_rate = 0.01;
        w.on_step(m);
      }
      EpochMetrics e;
      e.epoch = epoch;
      e.loss = 0.5 / epoch;
      e.learning_rate = 0.01;
      e.has_validation = true;
      e.val_accuracy = 0.25 * epoch;
      w.on_epoch(e);
    }
  }
  EXPECT_EQ(fs::path(train).parent_path(), dir / "train");
  EXPECT_EQ(fs::path(validation).parent_path(), dir / "validation");
  EXPECT_EQ(fs::path(train).filename().string().rfind("events.out.tfevents.", 0), 0u);
  EXPECT_EQ(tensorboard_files(dir.string()), (std::vector<std::string>{train, validation}));
  std::string warning;
  auto points = read_tensorboard_scalars(train, &warning);
  EXPECT_TRUE(warning.empty()) << warning;
  ASSERT_EQ(points.size(), 2u * (5 * 5 + 4));  // per step 5 batch_* scalars, per epoch 4 epoch_*
  EXPECT_EQ(points[5].tag, "batch_loss");
  EXPECT_EQ(points[5].step, 2);
  EXPECT_FLOAT_EQ(points[5].value, 0.5f);
  const auto second_epoch = std::find_if(points.rbegin(), points.rend(), [](const ScalarPoint& p) { return p.tag == "epoch_loss"; });
  ASSERT_NE(second_epoch, points.rend());
  EXPECT_EQ(second_epoch->step, 1);  // epochs count from 0, as Keras'
  EXPECT_FLOAT_EQ(second_epoch->value, 0.25f);
  const auto val = read_tensorboard_scalars(validation, &warning);
  ASSERT_EQ(val.size(), 2u * 3);
  EXPECT_EQ(val[1].tag, "epoch_accuracy");
  EXPECT_EQ(val[1].step, 0);
  EXPECT_FLOAT_EQ(val[1].value, 0.25f);
  EXPECT_EQ(val.back().tag, "epoch_top_k_categorical_accuracy");
  EXPECT_EQ(val.back().step, 1);
  // Cut the file inside its last record, as a kill -9 mid-write would.
  fs::resize_file(train, fs::file_size(train) - 7);
  points = read_tensorboard_scalars(train, &warning);
  EXPECT_EQ(points.size(), 2u * (5 * 5 + 4) - 1);
  EXPECT_NE(warning.find("cut short"), std::string::npos) << warning;
  // A flipped byte is caught by the CRC.
  {
    std::fstream f(train, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  warning.clear();
  points = read_tensorboard_scalars(train, &warning);
  EXPECT_NE(warning.find("wrong CRC"), std::string::npos) << warning;
  mirror::testing::remove_tree(dir);
}

TEST(RunReader, HalfWrittenFilesOpenWithAWarningAndLoseNothingIntact) {
  const auto root = fs::temp_directory_path() / ("mirror-runs-" + std::to_string(::getpid()));
  mirror::testing::remove_tree(root);
  const auto good = root / "20261130-100000-good";
  fs::create_directories(good);
  mirror::testing::write_file(good / "run.json", R"({"status": "running", "config": {"preset": "p", "seed": 1, "dataset": {"name": "blobs"}}})");
  mirror::testing::write_file(good / "metrics.jsonl",
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
  mirror::testing::write_file(good / "metrics.jsonl", "{\"type\":\"step\",\"global_step\":1,\"loss\":2.0}\n{\"type\":\"step\",\"global_step\":2,\"loss\":9.0}\n"
                                "{\"type\":\"resumed\",\"global_step\":1}\n{\"type\":\"step\",\"global_step\":2,\"loss\":1.5}\n");
  r = read_run(good.string());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_DOUBLE_EQ(r.steps[1].loss, 1.5);
  // A run.json cut in half: a clear error for that run, listed rather than dropped.
  const auto bad = root / "20261130-110000-bad";
  fs::create_directories(bad);
  mirror::testing::write_file(bad / "run.json", R"({"status": "runn)");
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
