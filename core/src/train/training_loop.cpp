#include "training_loop.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <thread>

#include "mirror/data/batch.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"
#include "mirror/util/words.h"
#include "epoch_callbacks.h"
#include "run_started.h"
#include "validation.h"

namespace mirror {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Blocks while paused (telling `sink` once that the run holds); returns true when the run should
// stop. When it held, `held` gets when the hold began and ended.
bool should_stop(TrainControl& control, EventSink& sink, std::optional<std::pair<Clock::time_point, Clock::time_point>>& held) {
  bool told = false;
  Clock::time_point hold_begin{};
  while (control.pause.load() && !control.stop.load()) {
    // Step by step: take one unit and go on for one step; the next call holds again.
    int64_t steps = control.single_steps.load();
    if (steps > 0 && control.single_steps.compare_exchange_strong(steps, steps - 1)) break;
    if (!told) {
      hold_begin = Clock::now();
      sink.on_hold();
      told = true;
    }
    control.holding.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  control.holding.store(false);
  held.reset();
  if (told) held.emplace(hold_begin, Clock::now());
  return control.stop.load();
}

// One run of the training loop. Its state is a TrainPosition, so saving a checkpoint is copying
// it; each member does one job of the loop.
class TrainingLoop {
 public:
  TrainingLoop(const TrainConfig& config, const Dataset& data, MirroredStrategy& strategy, EventSink& sink,
               TrainControl& control, CheckpointStore* store, const TrainPosition& start, torch::Tensor best_params)
      : config_(config), data_(data), strategy_(strategy), sink_(sink), control_(control), store_(store), pos_(start),
        best_params_(std::move(best_params)), regions_(data),
        n_train_(data.size(Split::kTrain)), n_val_(data.size(Split::kValidation)),
        steps_per_epoch_((n_train_ + config.batch_size - 1) / config.batch_size) {}

  RunFinished run() {
    RunFinished fin;
    try {
      sink_.on_started(run_started(strategy_, config_, data_.info(), n_train_, n_val_, steps_per_epoch_));
      check_monitors(config_, n_val_);
      bool more = !at_step_limit();
      while (more && pos_.epoch <= config_.epochs) more = run_epoch(fin);
      if (control_.stop.load() && fin.status == RunStatus::kFinished) {
        fin.status = RunStatus::kStopped;
        fin.message = "stopped";
      }
      strategy_.check_sync();
    } catch (const SyncError& e) {
      fin.status = RunStatus::kFailed;
      fin.message = describe_exception(e);
      fin.sync_failed_step = e.step();
      fin.sync_failed_checksums = e.checksums();
    } catch (const std::exception& e) {
      fin.status = RunStatus::kFailed;
      fin.message = describe_exception(e);
    }
    fin.steps = pos_.global_step;
    fin.epochs_completed = pos_.epoch - 1;
    fin.seconds = seconds_since(session_start_);
    fin.train_samples_per_sec =
        pos_.train_seconds > 0 ? static_cast<double>(pos_.train_samples) / pos_.train_seconds : 0;
    try {
      fin.param_l2_norm = strategy_.parameter_l2_norm();
    } catch (...) {
      fin.param_l2_norm = std::nan("");
    }
    sink_.on_finished(fin);
    return fin;
  }

 private:
  // The rate of the next update: the schedule's (warmup, scaling rule included) times what
  // ReduceLROnPlateau has taken off, never below its min_lr once it has.
  double next_rate() const {
    double rate = config_.schedule.rate(config_.optimizer.effective_learning_rate(), pos_.global_step, pos_.epoch,
                                        config_.batch_size);
    if (pos_.callbacks.plateau_scale < 1.0)
      rate = std::max(rate * pos_.callbacks.plateau_scale, config_.plateau.min_lr);
    return rate;
  }

  // Plateau and early stopping at the end of a whole epoch. Returns true when early stopping ends
  // the run now (after putting back the best weights when asked), with the reason in `fin`.
  bool epoch_callbacks(const EpochMetrics& em, RunFinished& fin) {
    const EpochVerdict verdict = mirror::epoch_callbacks(config_, em, pos_.callbacks);
    if (verdict.best) best_params_ = strategy_.state().params;
    if (!verdict.stop) return false;
    const bool restore = config_.early_stopping.restore_best && best_params_.defined();
    if (restore) strategy_.load_parameters(best_params_);
    fin.message = early_stop_message(config_, em, pos_.callbacks, restore);
    return true;
  }

  // With a demo pace, waits until the next step is due (or a stop or pause comes). The wait is
  // wall time, not training time: an idle span of the next step.
  void keep_pace() {
    const double pace = control_.pace.load();
    if (pace > 0 && last_step_start_ != Clock::time_point{}) {
      const auto due = last_step_start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / pace));
      const auto begin = Clock::now();
      while (Clock::now() < due && !control_.stop.load() && !control_.pause.load() && control_.pace.load() == pace)
        std::this_thread::sleep_for(std::min<Clock::duration>(due - Clock::now(), std::chrono::milliseconds(20)));
      if (begin < due) idle(IdleKind::kPace, begin, Clock::now());
    }
    last_step_start_ = Clock::now();
  }

  // What the loop did between steps that is not training: counted apart and shown on the next
  // step's timeline.
  void idle(IdleKind kind, Clock::time_point begin, Clock::time_point end) {
    const double seconds = std::chrono::duration<double>(end - begin).count();
    if (kind == IdleKind::kPace) pace_seconds_ += seconds;
    if (kind == IdleKind::kPause) pause_seconds_ += seconds;
    pending_idle_.push_back({kind, begin, end});
  }

  // The step's timeline as the strategy measured it, numbered by the run's steps and with the
  // idle spans before the step it describes (several processes: the previous one).
  StepTimeline step_timeline(StepTimeline t, Clock::time_point step_start) {
    const int64_t step = pos_.global_step;  // this step, counted
    std::vector<IdleSpan> spans;
    for (const auto& p : pending_idle_)
      spans.push_back({p.kind, strategy_.process_rank(),
                       std::chrono::duration<double, std::milli>(p.begin - step_start).count(),
                       std::chrono::duration<double, std::milli>(p.end - step_start).count()});
    pending_idle_.clear();
    idle_before_[step] = std::move(spans);
    if (t.empty()) return t;
    t.global_step = step - (strategy_.steps() - t.global_step);  // the strategy counts from its own start
    if (const auto it = idle_before_.find(t.global_step); it != idle_before_.end()) t.idle = it->second;
    idle_before_.erase(idle_before_.begin(), idle_before_.lower_bound(t.global_step));
    return t;
  }

  bool at_step_limit() const { return config_.max_steps > 0 && pos_.global_step >= config_.max_steps; }

  // Trains the rest of the current epoch, validates, reports it and moves on. Returns false when
  // the run ends inside this epoch (a stop or the step limit) or took no step in it.
  bool run_epoch(RunFinished& fin) {
    const int epoch = pos_.epoch;
    // The data order depends on the seed and the epoch only, never on the replica count.
    const std::vector<int64_t> order = Rng(config_.seed, static_cast<uint64_t>(epoch)).permutation(n_train_);
    bool ended = false;
    while (pos_.step_in_epoch < steps_per_epoch_) {
      keep_pace();
      // Processes stop together: a stop asked of any one of them travels with the next step's
      // gradients, and all of them stop after that step. One process stops at once.
      std::optional<std::pair<Clock::time_point, Clock::time_point>> held;
      const bool asked = should_stop(control_, sink_, held);
      if (held) idle(IdleKind::kPause, held->first, held->second);
      if (stop_reported_ || (asked && strategy_.processes() == 1)) {
        fin.status = RunStatus::kStopped;
        fin.message = fmt::format("stopped at epoch {}, step {}", epoch, pos_.step_in_epoch);
        save(/*best=*/false);  // resume continues exactly here
        ended = true;
        break;
      }
      train_step(order, asked);
      const bool mid_epoch = pos_.step_in_epoch < steps_per_epoch_;
      const int64_t every = config_.checkpoints.every_steps;
      if (every > 0 && pos_.global_step % every == 0 && mid_epoch) save(/*best=*/false);
      if (at_step_limit()) {
        fin.message = fmt::format("reached the step limit ({})", config_.max_steps);
        if (mid_epoch) save(/*best=*/false);
        ended = true;
        break;
      }
    }
    if (pos_.step_in_epoch == 0) return false;
    EpochMetrics em = epoch_metrics();
    if (n_val_ > 0 && fin.status != RunStatus::kStopped) {
      const auto begin = Clock::now();
      validate(em);
      idle(IdleKind::kEvaluation, begin, Clock::now());
    }
    em.wall_seconds = seconds_since(session_start_);
    sink_.on_epoch(em);
    if (pos_.step_in_epoch == steps_per_epoch_) {
      const bool early_stop = epoch_callbacks(em, fin);
      finish_epoch(em);
      if (early_stop) return false;
    }
    return !ended;
  }

  // One mirrored step on the next slice of `order`; reports it. Throws RunError on a non-finite loss.
  void train_step(const std::vector<int64_t>& order, bool stop_asked) {
    const auto t0 = Clock::now();
    const int64_t begin = pos_.step_in_epoch * config_.batch_size;
    const int64_t end = std::min(n_train_, begin + config_.batch_size);
    const Batch b = data_.gather(Split::kTrain, std::vector<int64_t>(order.begin() + begin, order.begin() + end));
    const double rate = next_rate();
    strategy_.set_learning_rate(rate);
    last_rate_ = rate;
    const auto step_start = Clock::now();  // the clock of the step's timeline
    const StepResult r = strategy_.train_step(b, stop_asked);
    stop_reported_ = r.stop_asked;
    const double dt = seconds_since(t0);
    pos_.epoch_seconds += dt;
    pos_.train_seconds += dt;
    pos_.train_samples += r.sums.samples;
    pos_.epoch_sums.add(r.sums);
    ++pos_.step_in_epoch;
    ++pos_.global_step;
    StepMetrics m = step_metrics(r, dt);
    m.timeline = step_timeline(r.timeline, step_start);
    m.shard_examples = shard_examples(order, begin, end);
    if (!std::isfinite(m.loss))
      throw RunError(fmt::format(
          "the loss became {} at epoch {}, step {}: training diverged. Lower the learning rate "
          "(now {}) or check the data for extreme values",
          std::isnan(m.loss) ? "NaN" : "infinite", m.epoch, m.step, last_rate_));
    sink_.on_step(m);
  }

  // The first examples of each replica's shard of order[begin, end), as the strategy cuts it.
  std::vector<std::vector<int64_t>> shard_examples(const std::vector<int64_t>& order, int64_t begin, int64_t end) const {
    const ShardPlan plan(end - begin, strategy_.total_replicas());
    std::vector<std::vector<int64_t>> shards(static_cast<size_t>(plan.replicas()));
    for (int r = 0; r < plan.replicas(); ++r) {
      const auto first = order.begin() + begin + plan.offset(r);
      shards[static_cast<size_t>(r)].assign(first, first + std::min(plan.size(r), kShardExamplesShown));
    }
    return shards;
  }

  StepMetrics step_metrics(const StepResult& r, double seconds) const {
    StepMetrics m;
    m.epoch = pos_.epoch;
    m.step = pos_.step_in_epoch;
    m.steps_per_epoch = steps_per_epoch_;
    m.global_step = pos_.global_step;
    m.samples = r.sums.samples;
    m.samples_seen = pos_.train_samples;
    m.train_seconds = pos_.train_seconds;
    m.wall_seconds = seconds_since(session_start_);
    m.loss = r.sums.loss();
    m.accuracy = r.sums.accuracy();
    m.top_k_accuracy = r.sums.top_k_accuracy();
    m.step_seconds = seconds;
    m.samples_per_sec = seconds > 0 ? static_cast<double>(r.sums.samples) / seconds : 0;
    m.learning_rate = last_rate_;
    m.pace_seconds = pace_seconds_;
    m.pause_seconds = pause_seconds_;
    m.sync_checked = r.sync_checked;
    m.checksums = r.checksums;
    m.exchange_bytes = r.exchange_bytes;
    m.overlap_bytes = r.overlap_bytes;
    m.replicas = r.replicas;
    for (const auto& t : r.replicas) {
      m.compute_ms += t.compute_ms;
      m.allreduce_ms += t.allreduce_ms;
      m.update_ms += t.update_ms;
    }
    if (!r.replicas.empty()) {
      const double n = static_cast<double>(r.replicas.size());
      m.compute_ms /= n;
      m.allreduce_ms /= n;
      m.update_ms /= n;
    }
    return m;
  }

  EpochMetrics epoch_metrics() const {
    EpochMetrics em;
    em.epoch = pos_.epoch;
    em.epochs = config_.epochs;
    em.steps = pos_.step_in_epoch;
    em.global_step = pos_.global_step;
    em.samples_seen = pos_.train_samples;
    em.train_seconds = pos_.train_seconds;
    em.loss = pos_.epoch_sums.loss();
    em.accuracy = pos_.epoch_sums.accuracy();
    em.top_k_accuracy = pos_.epoch_sums.top_k_accuracy();
    em.seconds = pos_.epoch_seconds;
    em.learning_rate = last_rate_;
    em.samples_per_sec =
        pos_.epoch_seconds > 0 ? static_cast<double>(pos_.epoch_sums.samples) / pos_.epoch_seconds : 0;
    return em;
  }

  // The validation split, sharded like training batches; left out of `em` when a stop cut it short.
  // A whole validation is also reported as an Evaluation (what the model learned).
  void validate(EpochMetrics& em) {
    const int64_t eval_batch =
        config_.eval_batch_size > 0 ? config_.eval_batch_size : std::max<int64_t>(config_.batch_size, 256);
    ValidationPass pass = validate_split(strategy_, data_, eval_batch, control_.stop, em.epoch, em.global_step);
    if (pass.sums.samples != n_val_) return;
    em.has_validation = true;
    em.val_loss = pass.sums.loss();
    em.val_accuracy = pass.sums.accuracy();
    em.val_top_k_accuracy = pass.sums.top_k_accuracy();
    if (!pass.learned) return;
    pass.learned->regions = regions_.classify(strategy_);
    sink_.on_evaluation(*pass.learned);
  }

  // A whole epoch is done: the position moves to the next one, and a checkpoint is saved.
  void finish_epoch(const EpochMetrics& em) {
    const bool best = em.has_validation && em.val_accuracy > pos_.best_val_accuracy;
    if (best) pos_.best_val_accuracy = em.val_accuracy;
    pos_.epoch += 1;
    pos_.step_in_epoch = 0;
    pos_.epoch_sums = MetricSums{};
    pos_.epoch_seconds = 0;
    save(best);
  }

  // Every process takes part in state() (it gathers their dropout streams); the one with a store writes.
  void save(bool best) {
    if (!store_ && strategy_.processes() == 1) return;
    Checkpoint c{strategy_.state(), pos_, best_params_};
    if (store_) store_->save(c, best);
  }

  const TrainConfig& config_;
  const Dataset& data_;
  MirroredStrategy& strategy_;
  EventSink& sink_;
  TrainControl& control_;
  CheckpointStore* store_;
  TrainPosition pos_;
  torch::Tensor best_params_;  // early stopping's best weights (restore_best only)
  bool stop_reported_ = false;  // the last step said that some process was asked to stop
  double last_rate_ = 0;       // the rate of the last update
  const DecisionRegionGrid regions_;  // 2-D inputs: where the decision regions are drawn
  Clock::time_point last_step_start_{};  // for the demo pace
  // Not training, this session: the pace's waits and the pauses, in seconds; the idle spans since
  // the last step; and those before each step a timeline may still describe, on its clock.
  double pace_seconds_ = 0, pause_seconds_ = 0;
  struct PendingIdle {
    IdleKind kind;
    Clock::time_point begin, end;
  };
  std::vector<PendingIdle> pending_idle_;
  std::map<int64_t, std::vector<IdleSpan>> idle_before_;
  const Clock::time_point session_start_ = Clock::now();
  const int64_t n_train_;
  const int64_t n_val_;
  const int64_t steps_per_epoch_;
};
}  // namespace

RunFinished run_training_loop(const TrainConfig& config, const Dataset& data, MirroredStrategy& strategy,
                              EventSink& sink, TrainControl& control, CheckpointStore* store,
                              const TrainPosition& start, torch::Tensor best_params) {
  return TrainingLoop(config, data, strategy, sink, control, store, start, std::move(best_params)).run();
}

}  // namespace mirror
