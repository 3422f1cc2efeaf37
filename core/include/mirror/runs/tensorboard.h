#pragma once
// TensorBoard scalar event files (events.out.tfevents.*): length-prefixed records, each with a
// masked CRC-32C of its length and of its data, holding Event protocol buffers.

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "mirror/runs/tensorboard_hparams.h"
#include "mirror/train/events.h"

namespace mirror {

// CRC-32C (Castagnoli), and the masked form TFRecord stores.
uint32_t crc32c(const void* data, size_t size);
uint32_t masked_crc32c(const void* data, size_t size);

// One serialized Event record (header, data, footer) for a scalar, or for the file version
// record when `tag` is empty. Pure. tensorboard_record writes the scalar the old way (the
// `simple_value` field, as runs before version 0.2 did); tensorboard_tensor_record the way
// TensorFlow 2 and Keras do: a rank-0 DT_FLOAT tensor whose metadata names the scalars plugin.
std::string tensorboard_record(double wall_time, int64_t step, const std::string& tag, float value);
std::string tensorboard_tensor_record(double wall_time, int64_t step, const std::string& tag, float value);

// One serialized Event record holding a Summary of the one serialized Summary.Value `value`. Pure.
std::string tensorboard_summary_record(double wall_time, int64_t step, const std::string& value);

struct ScalarPoint {
  int64_t step = 0;
  std::string tag;
  float value = 0;
  double wall_time = 0;
};

// Reads every scalar of an event file, in either form above (and a float or double tensor's
// packed values or raw content), checking both CRCs of each record. A record cut short at the
// end (a writer killed mid-write) ends the reading quietly; `warning` then says so. A record with
// a wrong CRC ends it with a warning too. Throws DataError if the file cannot be read.
std::vector<ScalarPoint> read_tensorboard_scalars(const std::string& path, std::string* warning = nullptr);

// The scalar event files of a run folder, oldest first within each place: its own (runs before
// 0.2; not the HParams files), then train/, then validation/. Empty when it has none.
std::vector<std::string> tensorboard_files(const std::string& run_dir);

// An EventSink writing a run's scalars in Keras' TensorBoard layout, so that `tensorboard
// --logdir RUNS` overlays training and validation and lines our runs up with Keras runs:
//   train/       batch_loss, batch_accuracy, batch_top_k_categorical_accuracy,
//                batch_learning_rate, batch_samples_per_sec (step = global step);
//                epoch_loss, epoch_accuracy, epoch_top_k_categorical_accuracy, epoch_learning_rate
//                (step = epoch, counted from 0 as Keras does)
//   validation/  epoch_loss, epoch_accuracy, epoch_top_k_categorical_accuracy (step = epoch)
//   .            with `hparams`, the run as a session of the HParams dashboard
//                (tensorboard_hparams.h): its settings at the start, its status at the end
// Append-only, flushed at every epoch and at the end, so a killed run keeps all but its last few
// records. A resumed run adds a new file to each folder. Not thread-safe (the trainer's thread).
class TensorBoardWriter : public EventSink {
 public:
  // Creates events.out.tfevents.<unix time>.<host>.v2 in `dir`/train and `dir`/validation, and
  // with `hparams` events.out.tfevents.<unix time>.<host>.hparams.v2 in `dir`. Throws RunError if
  // it cannot.
  explicit TensorBoardWriter(const std::string& dir, const std::vector<HParam>& hparams = {});
  void on_step(const StepMetrics& e) override;
  void on_epoch(const EpochMetrics& e) override;
  void on_finished(const RunFinished& e) override;
  const std::string& train_path() const { return train_.path; }
  const std::string& validation_path() const { return validation_.path; }

 private:
  struct File {
    std::string path;
    std::ofstream out;
  };
  static void open(File& f, const std::string& dir, double now, const char* suffix = "v2");
  static void scalar(File& f, int64_t step, const std::string& tag, double value);
  File train_;
  File validation_;
  File hparams_;  // not open: no hparams
};

}  // namespace mirror
