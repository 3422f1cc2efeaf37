#pragma once
// TensorBoard scalar event files (events.out.tfevents.*): length-prefixed records, each with a
// masked CRC-32C of its length and of its data, holding Event protocol buffers.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "mirror/train/events.h"

namespace mirror {

// CRC-32C (Castagnoli), and the masked form TFRecord stores.
uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

// One serialized Event record (header, data, footer) for a scalar, or for the file version
// record when `tag` is empty. Pure.
std::string tensorboard_record(double wall_time, int64_t step, const std::string& tag, float value);

struct ScalarPoint {
  int64_t step = 0;
  std::string tag;
  float value = 0;
  double wall_time = 0;
};

// Reads every scalar of an event file, checking both CRCs of each record. A record cut short
// at the end (a writer killed mid-write) ends the reading quietly; `warning` then says so. A
// record with a wrong CRC ends it with a warning too. Throws DataError if the file cannot be read.
std::vector<ScalarPoint> read_tensorboard_scalars(const std::string& path, std::string* warning = nullptr);

// An EventSink writing train/val scalars per step and epoch into `dir`; append-only, flushed at
// every epoch and at the end, so a killed run keeps all but its last few records.
class TensorBoardWriter : public EventSink {
 public:
  // Creates events.out.tfevents.<unix time>.<host> in `dir`. Throws RunError if it cannot.
  explicit TensorBoardWriter(const std::string& dir);
  void on_step(const StepMetrics& e) override;
  void on_epoch(const EpochMetrics& e) override;
  void on_finished(const RunFinished& e) override;
  const std::string& path() const { return path_; }

 private:
  void scalar(int64_t step, const std::string& tag, double value);
  std::string path_;
  std::ofstream out_;
  int64_t last_step_ = 0;
};

}  // namespace mirror
