#include "mirror/train/trainer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <thread>

#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"
#include "mirror/util/words.h"
#include "run_started.h"

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

// What every worker process must have loaded alike, one fact a line (so that a mismatch names
// the fact): the splits' sizes and the input shape, and for the user's own data the files read
// and their content hash (each worker reads the files itself).
std::string data_fingerprint(const Dataset& d) {
  const DatasetInfo& info = d.info();
  return fmt::format("examples: {} training, {} validation\ninput shape: {}\nclasses: {}\nfiles: {}\ncontent hash: {}\n",
                     d.size(Split::kTrain), d.size(Split::kValidation), format_shape(info.input_shape),
                     info.num_classes, info.file_count, info.content_hash.empty() ? "-" : info.content_hash);
}
}  // namespace

Trainer::Trainer(TrainConfig config, std::shared_ptr<const Dataset> dataset, std::shared_ptr<WorkerGroup> workers)
    : config_(std::move(config)), dataset_(std::move(dataset)) {
  if (!dataset_) throw ConfigError("no dataset");
  config_.validate();
  const int processes = workers ? workers->world_size() : 1;
  if (processes > 1) {
    workers->check_same("config", to_json(config_).dump(1));
    workers->check_same("data", data_fingerprint(*dataset_));
  }
  const ModelAnalysis analysis = analyze(config_.model, input_spec(*dataset_));
  if (!analysis.ok())
    throw ConfigError(fmt::format("model '{}' does not fit dataset '{}': {}", config_.model.name,
                                  dataset_->info().name, analysis.describe_errors()));
  auto devices = resolve_devices(config_.devices, list_physical_devices());
  const int64_t replicas = static_cast<int64_t>(devices.size()) * processes;
  if (config_.batch_size < replicas)
    throw ConfigError(fmt::format("global batch size {} is smaller than the {} replicas; every replica needs "
                                  "at least one example (raise --batch-size or lower --logical)",
                                  config_.batch_size, replicas));
  MirroredOptions options = config_.strategy;
  options.shard_examples = (config_.batch_size + replicas - 1) / replicas;  // the largest shard
  strategy_ = std::make_unique<MirroredStrategy>(std::move(devices), analysis, config_.optimizer, options,
                                                 config_.seed, std::move(workers));
}

Trainer::~Trainer() = default;

void Trainer::resume(const Checkpoint& checkpoint) {
  strategy_->restore(checkpoint.state);
  start_ = checkpoint.position;
  start_best_params_ = checkpoint.best_params;
}

namespace {
// One run of the training loop. Its state is a TrainPosition, so saving a checkpoint is copying
// it; each member does one job of the loop.
class TrainingLoop {
 public:
  TrainingLoop(const TrainConfig& config, const Dataset& data, MirroredStrategy& strategy, EventSink& sink,
               TrainControl& control, CheckpointStore* store, const TrainPosition& start, torch::Tensor best_params)
      : config_(config), data_(data), strategy_(strategy), sink_(sink), control_(control), store_(store), pos_(start),
        best_params_(std::move(best_params)),
        n_train_(data.size(Split::kTrain)), n_val_(data.size(Split::kValidation)),
        steps_per_epoch_((n_train_ + config.batch_size - 1) / config.batch_size) {}

  RunFinished run() {
    RunFinished fin;
    try {
      sink_.on_started(run_started(strategy_, config_, data_.info(), n_train_, n_val_, steps_per_epoch_));
      check_monitors();
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

  // Early stopping and plateau on a validation metric need a validation split.
  void check_monitors() const {
    for (const auto& [on, watch] : {std::pair{config_.plateau.enabled, config_.plateau.watch},
                                    std::pair{config_.early_stopping.enabled, config_.early_stopping.watch}})
      if (on && n_val_ == 0 && watch.monitor.rfind("val_", 0) == 0)
        throw ConfigError(fmt::format("{} is watched, but this dataset has no validation split; watch loss or "
                                      "accuracy instead",
                                      watch.monitor));
  }

  static double monitored(const EpochMetrics& em, const std::string& name) {
    if (name == "val_loss") return em.val_loss;
    if (name == "val_accuracy") return em.val_accuracy;
    if (name == "val_top_k_accuracy") return em.val_top_k_accuracy;
    if (name == "loss") return em.loss;
    if (name == "accuracy") return em.accuracy;
    return em.top_k_accuracy;
  }

  // Plateau and early stopping at the end of a whole epoch. Returns true when early stopping ends
  // the run now (after putting back the best weights when asked), with the reason in `fin`.
  bool epoch_callbacks(const EpochMetrics& em, RunFinished& fin) {
    // A reduction shows in the next steps' learning_rate.
    if (config_.plateau.enabled)
      plateau_epoch_end(config_.plateau, monitored(em, config_.plateau.watch.monitor), em.learning_rate,
                        pos_.callbacks);
    const auto& es = config_.early_stopping;
    if (!es.enabled) return false;
    const double value = monitored(em, es.watch.monitor);
    const int best_before = pos_.callbacks.stop_best_epoch;
    const bool stop = early_stopping_epoch_end(es, value, em.epoch, pos_.callbacks);
    if (es.restore_best && pos_.callbacks.stop_best_epoch != best_before)
      best_params_ = strategy_.state().params;  // this epoch is the best so far
    if (!stop) return false;
    const bool restore = es.restore_best && best_params_.defined();
    if (restore) strategy_.load_parameters(best_params_);
    fin.message = fmt::format("early stop at epoch {}: {} has not improved for {} (best {:.4g} at epoch {}{})",
                              em.epoch, es.watch.monitor, counted(pos_.callbacks.stop_wait, "epoch"), pos_.callbacks.stop_best,
                              pos_.callbacks.stop_best_epoch, restore ? ", whose weights were restored" : "");
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
    MetricSums val;
    std::optional<EvaluationBuilder> learned;
    // More classes than an evaluation may have: accuracy only (the reader would refuse the record).
    const int64_t classes = data_.info().num_classes;
    if (classes > 0 && classes <= kMaxEvaluationClasses) learned.emplace(classes);
    for (int64_t begin = 0; begin < n_val_; begin += eval_batch) {
      if (control_.stop.load() && strategy_.processes() == 1) break;  // processes validate to the end together
      const Batch b = data_.slice(Split::kValidation, begin, std::min(n_val_, begin + eval_batch));
      const StepResult r = strategy_.evaluate(b);
      val.add(r.sums);
      if (learned) {
        const auto labels = b.y.to(torch::kInt64).contiguous();
        learned->add(labels.data_ptr<int64_t>(), b.size(), r.top);
      }
    }
    if (val.samples != n_val_) return;
    em.has_validation = true;
    em.val_loss = val.loss();
    em.val_accuracy = val.accuracy();
    em.val_top_k_accuracy = val.top_k_accuracy();
    if (!learned) return;
    Evaluation ev = std::move(*learned).finish(em.epoch, em.global_step);
    ev.regions = decision_regions();
    sink_.on_evaluation(ev);
  }

  // For 2-D point inputs: the model's class over a grid covering the training points with a
  // margin (kRegionGrid points a side), as replica 0 predicts it.
  DecisionRegions decision_regions() {
    DecisionRegions d;
    const auto& info = data_.info();
    if (info.kind != InputKind::kFloat || info.input_shape != std::vector<int64_t>{2} || n_train_ == 0) return d;
    if (plane_.empty()) {
      torch::NoGradGuard no_grad;
      const auto x = data_.slice(Split::kTrain, 0, n_train_).x.to(torch::kFloat64);
      const auto lo = std::get<0>(x.min(0)), hi = std::get<0>(x.max(0));
      const double pad_x = std::max(0.1 * (hi[0] - lo[0]).item<double>(), 1e-3);
      const double pad_y = std::max(0.1 * (hi[1] - lo[1]).item<double>(), 1e-3);
      plane_ = {lo[0].item<double>() - pad_x, hi[0].item<double>() + pad_x, lo[1].item<double>() - pad_y,
                hi[1].item<double>() + pad_y};
    }
    d.columns = d.rows = kRegionGrid;
    d.x_min = plane_[0];
    d.x_max = plane_[1];
    d.y_min = plane_[2];
    d.y_max = plane_[3];
    auto cx = torch::arange(kRegionGrid, torch::kFloat64).add(0.5).mul((d.x_max - d.x_min) / kRegionGrid).add(d.x_min);
    auto cy = torch::arange(kRegionGrid, torch::kFloat64).add(0.5).mul((d.y_max - d.y_min) / kRegionGrid).add(d.y_min);
    // Row-major with row 0 at y_min: y varies slowest.
    auto points = torch::stack({cx.repeat({kRegionGrid}), cy.repeat_interleave(kRegionGrid)}, 1).to(torch::kFloat32);
    const auto [confidence, classes] = strategy_.predict(points).max(/*dim=*/1);
    const auto c = classes.to(torch::kInt32).contiguous();
    const auto p = confidence.contiguous();
    d.classes.assign(c.data_ptr<int32_t>(), c.data_ptr<int32_t>() + c.numel());
    d.confidence.assign(p.data_ptr<float>(), p.data_ptr<float>() + p.numel());
    return d;
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
  std::vector<double> plane_;  // 2-D inputs: the decision regions' x_min, x_max, y_min, y_max
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

RunFinished Trainer::run(EventSink& sink, TrainControl& control) {
  return TrainingLoop(config_, *dataset_, *strategy_, sink, control, store_, start_, start_best_params_).run();
}

}  // namespace mirror
