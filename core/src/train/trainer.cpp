#include "mirror/train/trainer.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <chrono>
#include <filesystem>
#include <cmath>
#include <thread>

#include "mirror/runs/checkpoint.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/train/metrics.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"

namespace mirror {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Blocks while paused; returns true when the run should stop.
bool should_stop(TrainControl& control) {
  while (control.pause.load() && !control.stop.load())
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return control.stop.load();
}
}  // namespace

InputSpec input_spec(const Dataset& dataset) {
  const auto& info = dataset.info();
  return InputSpec{info.input_shape, info.kind == InputKind::kTokens, info.vocab_size, info.num_classes};
}

Trainer::Trainer(TrainConfig config, std::shared_ptr<const Dataset> dataset)
    : config_(std::move(config)), dataset_(std::move(dataset)) {
  if (!dataset_) throw ConfigError("no dataset");
  config_.validate();
  const ModelAnalysis analysis = analyze(config_.model, input_spec(*dataset_));
  if (!analysis.ok())
    throw ConfigError(fmt::format("model '{}' does not fit dataset '{}': {}", config_.model.name,
                                  dataset_->info().name, analysis.describe_errors()));
  auto devices = resolve_devices(config_.devices, list_physical_devices());
  if (config_.batch_size < static_cast<int64_t>(devices.size()))
    throw ConfigError(fmt::format("global batch size {} is smaller than the {} replicas; every replica needs "
                                  "at least one example (raise --batch-size or lower --logical)",
                                  config_.batch_size, devices.size()));
  strategy_ = std::make_unique<MirroredStrategy>(std::move(devices), analysis, config_.optimizer,
                                                 config_.strategy, config_.seed);
}

Trainer::~Trainer() = default;

RunFinished Trainer::run(EventSink& sink, TrainControl& control) {
  RunFinished fin;
  const auto run_start = Clock::now();
  double train_seconds = 0;
  int64_t train_samples = 0;
  try {
    const auto& ck = config_.checkpoints;
    TrainPosition resume;
    if (!ck.resume_from.empty()) {
      const Checkpoint c = read_checkpoint(ck.resume_from);
      strategy_->restore(c.state);
      resume = c.position;
      fin.steps = resume.global_step;
      fin.epochs_completed = resume.epoch - 1;
      train_seconds = resume.train_seconds;
      train_samples = resume.train_samples;
    }
    double best_val = resume.best_val_accuracy;
    auto save = [&](const TrainPosition& p, bool best) {
      if (ck.dir.empty()) return;
      std::filesystem::create_directories(ck.dir);
      const Checkpoint c{strategy_->state(), p};
      write_checkpoint((std::filesystem::path(ck.dir) / fmt::format("ckpt-{}.pt", p.global_step)).string(), c);
      prune_checkpoints(ck.dir, ck.keep_last);
      if (best) write_checkpoint((std::filesystem::path(ck.dir) / "best.pt").string(), c);
    };
    const int64_t n_train = dataset_->size(Split::kTrain);
    const int64_t n_val = dataset_->size(Split::kValidation);
    const int64_t batch = config_.batch_size;
    const int64_t steps_per_epoch = (n_train + batch - 1) / batch;
    const int64_t eval_batch = config_.eval_batch_size > 0 ? config_.eval_batch_size : std::max<int64_t>(batch, 256);

    RunStarted started;
    started.dataset = dataset_->info().name;
    started.model = config_.model.name;
    for (const auto& d : strategy_->devices()) started.devices.push_back(d.name());
    started.communicator = communicator_name(strategy_->communicator().kind);
    started.communicator_reason = strategy_->communicator().reason;
    started.intra_op_threads = strategy_->intra_op_threads();
    started.parameters = strategy_->num_parameters();
    started.train_size = n_train;
    started.val_size = n_val;
    started.global_batch = batch;
    started.shard_sizes = ShardPlan(batch, strategy_->num_replicas()).sizes();
    started.steps_per_epoch = steps_per_epoch;
    started.epochs = config_.epochs;
    sink.on_started(started);

    bool done = false;
    if (config_.max_steps > 0 && fin.steps >= config_.max_steps) done = true;
    for (int epoch = std::max(1, resume.epoch); epoch <= config_.epochs && !done; ++epoch) {
      // The data order depends on the seed and the epoch only, never on the replica count.
      Rng rng(config_.seed, static_cast<uint64_t>(epoch));
      const std::vector<int64_t> order = rng.permutation(n_train);
      MetricSums train_sums;
      double epoch_seconds = 0;
      int64_t steps_done = 0;
      if (epoch == resume.epoch && resume.step_in_epoch > 0) {  // continue an epoch half done
        train_sums = MetricSums::from(resume.epoch_loss_sum, resume.epoch_samples, resume.epoch_correct,
                                      resume.epoch_top_k_correct);
        epoch_seconds = resume.epoch_seconds;
        steps_done = resume.step_in_epoch;
      }
      auto position = [&](int64_t next_step) {
        TrainPosition p;
        p.epoch = epoch;
        p.step_in_epoch = next_step;
        p.global_step = fin.steps;
        p.epoch_loss_sum = train_sums.loss_sum();
        p.epoch_samples = train_sums.samples();
        p.epoch_correct = train_sums.correct();
        p.epoch_top_k_correct = train_sums.top_k_correct();
        p.epoch_seconds = epoch_seconds;
        p.train_seconds = train_seconds;
        p.train_samples = train_samples;
        p.best_val_accuracy = best_val;
        return p;
      };
      for (int64_t s = steps_done; s < steps_per_epoch; ++s) {
        if (should_stop(control)) {
          fin.status = RunStatus::kStopped;
          fin.message = fmt::format("stopped at epoch {}, step {}", epoch, s);
          save(position(s), false);  // resume continues exactly here
          done = true;
          break;
        }
        const auto t0 = Clock::now();
        const int64_t begin = s * batch;
        const int64_t end = std::min(n_train, begin + batch);
        const Batch b = dataset_->gather(Split::kTrain, std::vector<int64_t>(order.begin() + begin, order.begin() + end));
        const StepResult r = strategy_->train_step(b);
        const double dt = seconds_since(t0);
        epoch_seconds += dt;
        train_seconds += dt;
        train_samples += r.samples;
        train_sums.add(r);
        ++steps_done;
        ++fin.steps;
        StepMetrics m;
        m.epoch = epoch;
        m.step = s + 1;
        m.steps_per_epoch = steps_per_epoch;
        m.global_step = fin.steps;
        m.samples = r.samples;
        m.loss = r.loss_sum / static_cast<double>(r.samples);
        m.accuracy = static_cast<double>(r.correct) / static_cast<double>(r.samples);
        m.top_k_accuracy = static_cast<double>(r.top_k_correct) / static_cast<double>(r.samples);
        m.step_seconds = dt;
        m.samples_per_sec = dt > 0 ? static_cast<double>(r.samples) / dt : 0;
        m.replicas = r.replicas;
        if (!std::isfinite(m.loss))
          throw RunError(fmt::format(
              "the loss became {} at epoch {}, step {}: training diverged. Lower the learning rate "
              "(now {}) or check the data for extreme values",
              std::isnan(m.loss) ? "NaN" : "infinite", epoch, s + 1, config_.optimizer.effective_learning_rate()));
        sink.on_step(m);
        if (ck.every_steps > 0 && fin.steps % ck.every_steps == 0 && s + 1 < steps_per_epoch) save(position(s + 1), false);
        if (config_.max_steps > 0 && fin.steps >= config_.max_steps) {
          fin.message = fmt::format("reached the step limit ({})", config_.max_steps);
          if (s + 1 < steps_per_epoch) save(position(s + 1), false);
          done = true;
          break;
        }
      }
      if (steps_done == 0) break;
      EpochMetrics em;
      em.epoch = epoch;
      em.epochs = config_.epochs;
      em.steps = steps_done;
      em.loss = train_sums.loss();
      em.accuracy = train_sums.accuracy();
      em.top_k_accuracy = train_sums.top_k_accuracy();
      em.seconds = epoch_seconds;
      em.samples_per_sec = epoch_seconds > 0 ? static_cast<double>(train_sums.samples()) / epoch_seconds : 0;
      if (n_val > 0 && fin.status != RunStatus::kStopped) {
        MetricSums val;
        for (int64_t begin = 0; begin < n_val; begin += eval_batch) {
          if (control.stop.load()) break;
          val.add(strategy_->evaluate(dataset_->slice(Split::kValidation, begin, std::min(n_val, begin + eval_batch))));
        }
        if (val.samples() == n_val) {
          em.has_validation = true;
          em.val_loss = val.loss();
          em.val_accuracy = val.accuracy();
          em.val_top_k_accuracy = val.top_k_accuracy();
        }
      }
      sink.on_epoch(em);
      if (steps_done == steps_per_epoch) {
        fin.epochs_completed = epoch;
        const bool best = em.has_validation && em.val_accuracy > best_val;
        if (best) best_val = em.val_accuracy;
        TrainPosition next = position(0);
        next.epoch = epoch + 1;
        next.epoch_loss_sum = 0;
        next.epoch_samples = next.epoch_correct = next.epoch_top_k_correct = 0;
        next.epoch_seconds = 0;
        next.best_val_accuracy = best_val;
        save(next, best);
      }
    }
    if (control.stop.load() && fin.status == RunStatus::kFinished) {
      fin.status = RunStatus::kStopped;
      fin.message = "stopped";
    }
    strategy_->check_sync();
  } catch (const std::exception& e) {
    fin.status = RunStatus::kFailed;
    fin.message = describe_exception(e);
  }
  fin.seconds = seconds_since(run_start);
  fin.train_samples_per_sec = train_seconds > 0 ? static_cast<double>(train_samples) / train_seconds : 0;
  try {
    fin.param_l2_norm = strategy_->parameter_l2_norm();
  } catch (...) {
    fin.param_l2_norm = std::nan("");
  }
  sink.on_finished(fin);
  return fin;
}

}  // namespace mirror
