#pragma once
// How `mirrortrain train` shows a run: Keras-style progress lines for people, or one JSON object
// per event for programs.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "mirror/train/events.h"
#include "mirror/train/progress.h"

namespace mirror::cli {

// Keras fit()-like output: a header, "Epoch i/n", then one line per epoch with metrics and time.
// On a terminal the line is redrawn in place during the epoch (at most 10 times a second).
class ProgressPrinter : public EventSink {
 public:
  ProgressPrinter(std::FILE* out, int top_k);
  void on_started(const RunStarted& e) override;
  void on_step(const StepMetrics& e) override;
  void on_epoch(const EpochMetrics& e) override;
  void on_finished(const RunFinished& e) override;

 private:
  std::string bar(int64_t step, int64_t steps) const;

  std::FILE* out_;
  bool tty_;
  int top_k_;
  int epochs_ = 0;
  double epoch_loss_sum_ = 0;
  int64_t epoch_steps_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
  ProgressMeter meter_;  // the finish line's steps, training time and rate, as the window counts them
};

// One JSON object per line on `out`, flushed per line: started, step, epoch, final.
class JsonLinesPrinter : public EventSink {
 public:
  explicit JsonLinesPrinter(std::FILE* out) : out_(out) {}
  void on_started(const RunStarted& e) override;
  void on_step(const StepMetrics& e) override;
  void on_epoch(const EpochMetrics& e) override;
  // What the model learned at each validation (confusion matrix, example predictions), as
  // evaluations.jsonl records it.
  void on_evaluation(const Evaluation& e) override;
  void on_finished(const RunFinished& e) override;

 private:
  std::FILE* out_;
};

}  // namespace mirror::cli
