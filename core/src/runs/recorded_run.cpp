#include "mirror/runs/recorded_run.h"

#include <fmt/format.h>

#include <filesystem>

#include "mirror/data/registry.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/resume.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/tensorboard.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
std::string checkpoint_dir(const std::string& run_dir) {
  return (std::filesystem::path(run_dir) / "checkpoints").string();
}

// The data folder (or file) as an absolute path: the run may be looked at from another folder.
std::string recorded_data_dir(const std::string& data_dir) {
  if (data_dir.empty()) return data_dir;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(data_dir, ec);
  return ec ? data_dir : absolute.lexically_normal().string();
}
}  // namespace

std::string plan_run_dir(const std::string& root, const TrainConfig& c, const std::string& label) {
  return new_run_dir(root, !label.empty() ? label : !c.preset.empty() ? c.preset : c.model.name);
}

RecordedRun::RecordedRun(RunPlan plan, std::shared_ptr<const Dataset> dataset) {
  plan.config.validate();
  if (!dataset) dataset = load_dataset(plan.config.dataset);
  trainer_ = std::make_unique<Trainer>(plan.config, std::move(dataset), plan.workers);
  dir_ = std::move(plan.dir);
  if (dir_.empty()) return;
  if (plan.workers && plan.workers->world_size() > 1)
    plan.extra["workers"] = {{"world_size", plan.workers->world_size()},
                             {"launcher", plan.workers->env().launcher},
                             {"master", meeting_place(plan.workers->env())},
                             {"hosts", plan.workers->hosts()}};
  // The classes by name, so that the run speaks of its own data whatever is loaded when it is looked at.
  if (const auto& names = trainer_->dataset().info().class_names; !names.empty()) plan.extra["class_names"] = names;
  // Own data: where it was read, how many files and their content hash, so that a comparison can
  // tell whether two runs saw the same data.
  if (const DatasetInfo& info = trainer_->dataset().info(); info.file_count > 0 || !info.content_hash.empty())
    plan.extra["data"] = {{"data_dir", recorded_data_dir(plan.config.dataset.data_dir)},
                          {"file_count", info.file_count},
                          {"content_hash", info.content_hash}};
  writer_ = std::make_unique<RunWriter>(dir_, to_json(plan.config), plan.extra);
  if (!plan.meta.name.empty() || !plan.meta.tags.empty() || !plan.meta.notes.empty()) {
    try {  // a run without its name still trains and is recorded
      write_meta(dir_, plan.meta);
    } catch (const std::exception& e) {
      warnings_.push_back(fmt::format("cannot name the run: {}", e.what()));
    }
  }
  checkpoints_ = std::make_unique<CheckpointFolder>(checkpoint_dir(dir_), plan.config.checkpoints.keep_last);
  trainer_->save_checkpoints(checkpoints_.get());
  add_tensorboard(to_json(plan.config), plan.extra.contains("sweep") ? plan.extra["sweep"].value("settings", nlohmann::json())
                                                                      : nlohmann::json());
}

std::unique_ptr<RecordedRun> RecordedRun::resume(const std::string& dir, const ResumeOptions& options) {
  // The folder's one writer from here on, before its records are read: a second resume of the
  // same run ends here at once (two once trained together and interleaved their records).
  std::optional<RunLock> lock;
  std::error_code ec;
  if (options.record && std::filesystem::is_directory(dir, ec)) lock.emplace(dir);
  ResumePoint p = resume_point(dir);
  if (options.epochs) p.config.epochs = *options.epochs;
  if (options.max_steps) p.config.max_steps = *options.max_steps;
  if (options.logical) p.config.devices.logical = *options.logical;
  p.config.validate();
  std::shared_ptr<const Dataset> dataset = load_dataset(p.config.dataset);
  // The same data as the checkpoint saw, or the person's word that other data is meant.
  nlohmann::json data_update = nlohmann::json::object();
  const DatasetInfo& info = dataset->info();
  const std::string change = describe_data_change(p.data, info);
  if (!change.empty()) {
    if (!options.accept_changed_data)
      throw ConfigError(fmt::format("{}: its data changed: {}. Put the recorded data back, or accept the new data "
                                    "(mirrortrain train --resume DIR --accept-changed-data; run.json then keeps both)",
                                    dir, change));
    p.data_changes.push_back({{"from_step", p.from_step},
                              {"at", utc_now("%Y-%m-%dT%H:%M:%SZ")},
                              {"before", {{"file_count", p.data.file_count}, {"content_hash", p.data.content_hash}}},
                              {"after", {{"file_count", info.file_count}, {"content_hash", info.content_hash}}}});
    data_update["data"] = {{"data_dir", p.data.data_dir}, {"file_count", info.file_count}, {"content_hash", info.content_hash}};
    data_update["data_changes"] = p.data_changes;
    if (!info.class_names.empty()) data_update["class_names"] = info.class_names;
  }
  std::unique_ptr<RecordedRun> run(new RecordedRun);
  if (!change.empty()) run->warnings_.push_back(fmt::format("resuming on changed data, as asked: {}", change));
  // The checkpoint holds the weights: a run started from a .keras file resumes without it.
  TrainConfig trainer_config = p.config;
  trainer_config.initial_weights.clear();
  run->trainer_ = std::make_unique<Trainer>(std::move(trainer_config), std::move(dataset), options.workers);
  run->trainer_->resume(p.saved);
  run->resumed_from_step_ = p.from_step;
  run->resumed_from_checkpoint_ = p.checkpoint;
  for (const auto& [file, why] : p.unreadable) {
    std::string moved;
    if (options.record) {  // set aside, so that it is never taken for the newest again; kept to look at
      std::error_code ec;
      std::filesystem::rename(file, file + ".unreadable", ec);
      moved = ec ? fmt::format(" (could not set it aside: {})", ec.message()) : fmt::format("; kept as {}.unreadable", file);
    }
    run->warnings_.push_back(fmt::format("passed over a damaged checkpoint: {}{}; resuming from {} instead", why, moved,
                                         p.checkpoint));
  }
  if (!options.record) return run;
  run->dir_ = dir;
  run->writer_ = RunWriter::resume(dir, p.from_step, data_update, std::move(lock));
  run->checkpoints_ = std::make_unique<CheckpointFolder>(checkpoint_dir(dir), p.config.checkpoints.keep_last);
  run->trainer_->save_checkpoints(run->checkpoints_.get());
  nlohmann::json sweep_settings;
  try {
    const nlohmann::json recorded = RunWriter::read_run_json(dir);
    if (recorded.contains("sweep") && recorded["sweep"].is_object()) sweep_settings = recorded["sweep"].value("settings", nlohmann::json());
  } catch (const std::exception&) {  // read a moment ago by resume_point; the dashboard then shows the config's settings
  }
  run->add_tensorboard(to_json(p.config), sweep_settings);
  return run;
}

RecordedRun::~RecordedRun() = default;

void RecordedRun::add_tensorboard(const nlohmann::json& config, const nlohmann::json& sweep_settings) {
  try {
    tensorboard_ = std::make_unique<TensorBoardWriter>(dir_, run_hparams(config, sweep_settings));
  } catch (const std::exception& e) {  // the run is still recorded in run.json and metrics.jsonl
    warnings_.push_back(fmt::format("no TensorBoard events for this run: {}", e.what()));
  }
}

RunFinished RecordedRun::run(EventSink& observer, TrainControl& control) {
  std::vector<EventSink*> sinks;
  if (writer_) sinks.push_back(writer_.get());
  if (tensorboard_) sinks.push_back(tensorboard_.get());
  sinks.push_back(&observer);  // last: the records already hold what it hears
  TeeSink tee(sinks);
  RunFinished finished = trainer_->run(tee, control);
  // Everything is written: the folder is free for its next writer (a resume to more epochs)
  // while this object lives on (the window keeps the run it showed last).
  tensorboard_.reset();
  if (writer_) writer_->release_folder();
  return finished;
}

}  // namespace mirror
