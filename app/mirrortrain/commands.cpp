#include "commands.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <csignal>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "mirror/data/keras_datasets.h"
#include "mirror/data/preview.h"
#include "mirror/data/registry.h"
#include "mirror/model/presets.h"
#include "mirror/model/summary.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/tensorboard.h"
#include "mirror/strategy/device.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/threads.h"
#include "progress.h"

namespace mirror::cli {

namespace {
TrainControl* g_control = nullptr;
volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_signal(int) {
  g_interrupted = 1;
  if (g_control) g_control->stop.store(true);
}

int config_error(const std::exception& e) {
  fmt::print(stderr, "mirrortrain: error: {}\n", e.what());
  return kExitBadConfig;
}

// The config a preset gives, with the model and dataset flags applied.
TrainConfig base_config(const ModelArgs& a) {
  TrainConfig c = config_from_preset(a.preset);
  if (a.model_file) {
    c.model = load_model_file(*a.model_file);
    c.preset.clear();
  }
  if (a.dataset) c.dataset.name = *a.dataset;
  c.dataset.data_dir = a.data_dir;
  c.dataset.seed = a.seed;
  c.dataset.train_size = a.train_size;
  c.dataset.val_size = a.val_size;
  if (a.num_words) c.dataset.num_words = *a.num_words;
  c.dataset.skip_top = a.skip_top;
  c.dataset.maxlen = a.maxlen;
  c.dataset.sequence_length = a.sequence_length;
  c.dataset.min_wires_per_topic = a.min_wires_per_topic;
  c.seed = a.seed;
  return c;
}
}  // namespace

int run_summary(const ModelArgs& args) {
  try {
    const TrainConfig c = base_config(args);
    const auto data = load_dataset(c.dataset);
    const ModelAnalysis a = analyze(c.model, input_spec(*data));
    fmt::print("{}", format_summary(c.model.name, a));
    if (!a.ok()) {
      fmt::print(stderr, "mirrortrain: error: model does not fit dataset '{}': {}\n", data->info().name,
                 a.describe_errors());
      return kExitBadConfig;
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

int run_inspect(const ModelArgs& args, int samples) {
  try {
    const TrainConfig c = base_config(args);
    const auto data = load_dataset(c.dataset);
    const auto& info = data->info();
    fmt::print("{} from {}\n", info.name, info.source);
    fmt::print("train {} / validation {} examples, input {}{}\n", data->size(Split::kTrain),
               data->size(Split::kValidation), format_shape(info.input_shape),
               info.kind == InputKind::kTokens ? fmt::format(", token ids below {}", info.vocab_size) : "");
    const auto train_counts = data->class_counts(Split::kTrain);
    const auto val_counts = data->class_counts(Split::kValidation);
    fmt::print("{} classes (train / validation examples):\n", info.num_classes);
    for (int64_t k = 0; k < info.num_classes; ++k)
      fmt::print("  {:>3} {:<16} {:>6} / {}\n", k,
                 k < static_cast<int64_t>(info.class_names.size()) ? info.class_names[static_cast<size_t>(k)] : "",
                 train_counts[static_cast<size_t>(k)], val_counts[static_cast<size_t>(k)]);
    for (const auto& p : preview_examples(*data, Split::kTrain, samples)) {
      std::string text = p.text;
      if (text.empty())  // dense inputs: the first few values
        for (size_t k = 0; k < std::min<size_t>(p.values.size(), 8); ++k) text += fmt::format("{:.3g} ", p.values[k]);
      if (text.size() > 600) {
        text.resize(600);
        text += " ...";
      }
      fmt::print("example {} label {} {}: {}\n", p.index, p.label, p.label_name, text);
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

namespace {
// `train --resume DIR`: the recorded config, its newest checkpoint, and the run continued in DIR.
void resume_run(const TrainArgs& args, std::unique_ptr<Trainer>& trainer, std::unique_ptr<RunWriter>& writer) {
  const std::string dir = args.resume;
  TrainConfig c = config_from_json(RunWriter::read_run_json(dir).at("config"));
  if (args.epochs) c.epochs = *args.epochs;
  if (args.max_steps > 0) c.max_steps = args.max_steps;
  c.checkpoints.dir = (std::filesystem::path(dir) / "checkpoints").string();
  const auto checkpoints = list_checkpoints(c.checkpoints.dir);
  if (checkpoints.empty())
    throw ConfigError(fmt::format("{}: no checkpoint to resume from (checkpoints/ is empty)", dir));
  c.checkpoints.resume_from = checkpoints.back();
  const int64_t from_step = read_checkpoint(c.checkpoints.resume_from).position.global_step;
  c.validate();
  trainer = std::make_unique<Trainer>(c, load_dataset(c.dataset));
  writer = RunWriter::resume(dir, from_step);
  if (!args.json) fmt::print("Resuming {} from step {} ({})\n", dir, from_step, c.checkpoints.resume_from);
}
}  // namespace

int run_train(const TrainArgs& args) {
  TrainControl control;
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<RunWriter> writer;
  try {
    if (!args.resume.empty()) {
      resume_run(args, trainer, writer);
    } else {
    TrainConfig c = base_config(args.model);
    if (args.epochs) c.epochs = *args.epochs;
    if (args.batch_size) c.batch_size = *args.batch_size;
    if (args.optimizer && *args.optimizer != c.optimizer.name) {
      c.optimizer = OptimizerConfig{};  // the preset's settings belong to its own optimizer
      c.optimizer.name = *args.optimizer;
    }
    if (args.lr) {
      if (!(*args.lr > 0)) throw ConfigError(fmt::format("invalid learning rate: {} (must be > 0)", *args.lr));
      c.optimizer.learning_rate = *args.lr;
    }
    if (args.momentum != 0) c.optimizer.momentum = args.momentum;
    c.optimizer.nesterov = args.nesterov;
    c.devices.devices = args.devices;
    if (args.logical) c.devices.logical = *args.logical;
    c.devices.memory_limit_mib = args.memory_limit_mib;
    c.max_steps = args.max_steps;
    c.strategy.communicator = parse_communicator(args.communicator);
    c.strategy.sync_check_every = args.sync_every;
    c.strategy.intra_op_threads = args.threads;
    c.strategy.deterministic = args.deterministic;
    c.strategy.top_k = args.top_k;
    if (!args.run_dir.empty()) {
      c.checkpoints.dir = (std::filesystem::path(args.run_dir) / "checkpoints").string();
      c.checkpoints.every_steps = args.checkpoint_every;
    }
    c.validate();
    auto data = load_dataset(c.dataset);
    trainer = std::make_unique<Trainer>(c, data);
    if (!args.run_dir.empty()) writer = std::make_unique<RunWriter>(args.run_dir, to_json(c));
    }
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  } catch (const std::exception& e) {
    fmt::print(stderr, "mirrortrain: error while setting up the run: {}\n", describe_exception(e));
    return kExitRunFailed;
  }

  ProgressPrinter human(stdout, static_cast<int>(trainer->config().strategy.top_k));
  JsonLinesPrinter json(stdout);
  EventSink& printer = args.json ? static_cast<EventSink&>(json) : human;
  std::unique_ptr<TensorBoardWriter> tensorboard;
  std::vector<EventSink*> sinks = {&printer};
  if (writer) {
    try {
      tensorboard = std::make_unique<TensorBoardWriter>(writer->dir());
    } catch (const std::exception& e) {
      fmt::print(stderr, "mirrortrain: warning: no TensorBoard events for this run: {}\n", e.what());
    }
    sinks.push_back(writer.get());
    if (tensorboard) sinks.push_back(tensorboard.get());
  }
  TeeSink sink(sinks);

  g_control = &control;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const RunFinished fin = trainer->run(sink, control);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_control = nullptr;

  if (fin.status == RunStatus::kFailed) {
    fmt::print(stderr, "mirrortrain: run failed: {}\n", fin.message);
    return kExitRunFailed;
  }
  if (fin.status == RunStatus::kStopped && g_interrupted) return kExitInterrupted;
  return kExitOk;
}

int run_presets() {
  for (const auto& p : presets())
    fmt::print("{:<14} dataset {:<15} {} x{} batch {}, {} epochs, {} logical device(s)\n    {}\n", p.name,
               p.dataset, p.optimizer, p.learning_rate, p.batch_size, p.epochs, p.logical_devices, p.description);
  return kExitOk;
}

int run_devices() {
  for (const auto& d : list_physical_devices())
    fmt::print("{:<8} {}{}\n", d.name, d.model, d.memory_mib ? fmt::format(", {} MiB", d.memory_mib) : "");
  fmt::print("LibTorch {}, BLAS: {}, CUDA: {}\n", TORCH_VERSION, blas_vendor(),
             list_physical_devices().size() > 1 ? "available" : "not available in this build");
  return kExitOk;
}

int run_datasets() {
  for (const auto& d : list_datasets())
    fmt::print("{:<15} {}{}\n", d.name, d.summary, d.default_dir.empty() ? "" : fmt::format(" [{}]", d.default_dir));
  return kExitOk;
}

}  // namespace mirror::cli
