#include "progress.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "mirror/runs/evaluations.h"
#include "mirror/train/events_json.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"

namespace mirror::cli {

namespace {
std::string duration(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f}s", seconds);
  return fmt::format("{}m{:02d}s", static_cast<int>(seconds) / 60, static_cast<int>(seconds) % 60);
}
}  // namespace

ProgressPrinter::ProgressPrinter(std::FILE* out, int top_k)
    : out_(out), tty_(::isatty(fileno(out)) != 0), top_k_(top_k) {}

void ProgressPrinter::on_started(const RunStarted& e) {
  epochs_ = e.epochs;
  fmt::print(out_, "Training {} on {} ({} train / {} validation examples), {} parameters\n", terminal_text(e.model),
             terminal_text(e.dataset),
             e.train_size, e.val_size, e.parameters);
  fmt::print(out_, "Replicas: {} [{}]\n", e.devices.size(), fmt::join(e.devices, ", "));
  fmt::print(out_, "All-reduce: {}\n", e.communicator_reason);
  if (!e.cuda_graphs.empty()) fmt::print(out_, "CUDA graphs: {}\n", e.cuda_graphs);
  if (e.precision == "mixed-bf16")
    fmt::print(out_, "Precision: mixed-bf16 (the layers compute in bfloat16; weights, gradients and loss in float32)\n");
  fmt::print(out_, "Global batch {} -> shards [{}], {} per replica{}\n", e.global_batch,
             fmt::join(e.shard_sizes, ", "), counted(e.intra_op_threads, "intra-op thread"),
             e.intra_op_threads_reason.empty() ? "" : " (" + e.intra_op_threads_reason + ")");
  std::fflush(out_);
}

std::string ProgressPrinter::bar(int64_t step, int64_t steps) const {
  constexpr int kWidth = 30;
  const int filled = steps > 0 ? static_cast<int>(kWidth * step / steps) : kWidth;
  std::string b(static_cast<size_t>(filled), '=');
  if (filled < kWidth) b += '>' + std::string(static_cast<size_t>(kWidth - filled - 1), '.');
  return "[" + b + "]";
}

void ProgressPrinter::on_step(const StepMetrics& e) {
  if (e.step == 1) {
    fmt::print(out_, "Epoch {}/{}\n", e.epoch, epochs_);
    epoch_loss_sum_ = 0;
    epoch_steps_ = 0;
  }
  epoch_loss_sum_ += e.loss;
  ++epoch_steps_;
  meter_.add(e);
  if (!tty_) return;
  const auto now = std::chrono::steady_clock::now();
  if (e.step != e.steps_per_epoch && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  fmt::print(out_, "\r{}/{} {} - loss: {:.4f} - {:.0f} samples/s\x1b[K", e.step, e.steps_per_epoch,
             bar(e.step, e.steps_per_epoch), epoch_loss_sum_ / static_cast<double>(epoch_steps_),
             e.samples_per_sec);
  std::fflush(out_);
}

void ProgressPrinter::on_epoch(const EpochMetrics& e) {
  std::string line = fmt::format("{}/{} {} - {} {:.0f}ms/step - loss: {:.4f} - accuracy: {:.4f} - top{}: {:.4f}",
                                 e.steps, e.steps, bar(1, 1), duration(e.seconds),
                                 e.steps ? 1000.0 * e.seconds / static_cast<double>(e.steps) : 0.0, e.loss,
                                 e.accuracy, top_k_, e.top_k_accuracy);
  if (e.has_validation)
    line += fmt::format(" - val_loss: {:.4f} - val_accuracy: {:.4f} - val_top{}: {:.4f}", e.val_loss,
                        e.val_accuracy, top_k_, e.val_top_k_accuracy);
  line += fmt::format(" - {:.0f} samples/s", e.samples_per_sec);
  fmt::print(out_, "{}{}\n", tty_ ? "\r\x1b[K" : "", line);
  std::fflush(out_);
}

void ProgressPrinter::on_finished(const RunFinished& e) {
  if (e.status == RunStatus::kFinished)
    fmt::print(out_, "Finished: {}{}\n", progress_summary(meter_, e.steps),
               e.message.empty() ? "" : " (" + terminal_text(e.message) + ")");
  else if (e.status == RunStatus::kStopped)  // failures go to stderr, once, from the command
    fmt::print(out_, "{}stopped: {}\n", tty_ ? "\n" : "", terminal_text(e.message, LineBreaks::kKeep));
  std::fflush(out_);
}

void JsonLinesPrinter::on_started(const RunStarted& e) { fmt::print(out_, "{}\n", to_json(e).dump()); std::fflush(out_); }
void JsonLinesPrinter::on_step(const StepMetrics& e) { fmt::print(out_, "{}\n", to_json(e).dump()); std::fflush(out_); }
void JsonLinesPrinter::on_epoch(const EpochMetrics& e) { fmt::print(out_, "{}\n", to_json(e).dump()); std::fflush(out_); }
void JsonLinesPrinter::on_evaluation(const Evaluation& e) {
  fmt::print(out_, "{}\n", to_json(e).dump());
  std::fflush(out_);
}
void JsonLinesPrinter::on_finished(const RunFinished& e) { fmt::print(out_, "{}\n", to_json(e).dump()); std::fflush(out_); }

}  // namespace mirror::cli
