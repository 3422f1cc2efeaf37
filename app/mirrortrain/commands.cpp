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
#include "mirror/runs/run_reader.h"
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
    std::string run_dir = args.run_dir;
    if (run_dir.empty() && !args.no_record)
      run_dir = new_run_dir(default_runs_root(), c.preset.empty() ? c.model.name : c.preset);
    if (!run_dir.empty()) {
      c.checkpoints.dir = (std::filesystem::path(run_dir) / "checkpoints").string();
      c.checkpoints.every_steps = args.checkpoint_every;
    }
    c.validate();
    auto data = load_dataset(c.dataset);
    trainer = std::make_unique<Trainer>(c, data);
    if (!run_dir.empty()) {
      writer = std::make_unique<RunWriter>(run_dir, to_json(c));
      if (!args.json) fmt::print("Recording to {}\n", run_dir);
    }
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

namespace {
std::string resolve_run(const RunsArgs& a, const std::string& dir) {
  if (std::filesystem::exists(std::filesystem::path(dir) / "run.json")) return dir;
  const auto under_root = std::filesystem::path(a.root.empty() ? default_runs_root() : a.root) / dir;
  if (std::filesystem::exists(under_root / "run.json")) return under_root.string();
  throw ConfigError(fmt::format("{}: no run here (no run.json), nor under {}", dir, under_root.parent_path().string()));
}

std::string csv_field(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string dataset_of(const RunRecord& r) { return config_value(r, "dataset.name"); }
std::string model_of(const RunRecord& r) {
  const std::string preset = config_value(r, "preset");
  return preset.empty() || preset == "-" ? (r.run.contains("config") ? r.run["config"]["model"].value("name", "?") : "?") : preset;
}
std::string best(const RunRecord& r) { return r.best_val_accuracy < 0 ? "-" : fmt::format("{:.4f}", r.best_val_accuracy); }

void print_warnings(const RunRecord& r) {
  for (const auto& w : r.warnings) fmt::print(stderr, "mirrortrain: warning: {}: {}\n", r.name, w);
}
}  // namespace

int run_runs_list(const RunsArgs& a) {
  const std::string root = a.root.empty() ? default_runs_root() : a.root;
  const auto runs = list_runs(root);
  if (a.csv) fmt::print("name,dataset,model,replicas,status,best_val_accuracy,steps,seconds,dir\n");
  else fmt::print("{:<36} {:<15} {:<26} {:>3} {:<10} {:>8} {:>7} {:>8}\n", "run", "dataset", "model", "rep", "status",
                  "best val", "steps", "time");
  for (const auto& r : runs) {
    const size_t replicas = r.run.contains("devices") ? r.run["devices"].size() : 0;
    const int64_t steps = r.steps.empty() ? 0 : r.steps.back().value("global_step", int64_t{0});
    if (a.csv)
      fmt::print("{},{},{},{},{},{},{},{:.1f},{}\n", csv_field(r.name), csv_field(dataset_of(r)), csv_field(model_of(r)),
                 replicas, r.status, best(r), steps, r.duration_seconds, csv_field(r.dir));
    else
      fmt::print("{:<36} {:<15} {:<26} {:>3} {:<10} {:>8} {:>7} {:>7.1f}s\n", r.name, dataset_of(r), model_of(r),
                 replicas, r.status, best(r), steps, r.duration_seconds);
    print_warnings(r);
  }
  if (runs.empty() && !a.csv) fmt::print("(no runs under {})\n", root);
  return kExitOk;
}

int run_runs_show(const RunsArgs& a) {
  try {
    const RunRecord r = read_run(resolve_run(a, a.dirs.at(0)));
    if (!a.csv) {
      fmt::print("{} ({}), {} on {}, {} replica(s)\n", r.name, r.status, model_of(r), dataset_of(r),
                 r.run.contains("devices") ? r.run["devices"].size() : 0);
      if (r.run.contains("message") && !r.run["message"].get<std::string>().empty())
        fmt::print("message: {}\n", r.run["message"].get<std::string>());
      fmt::print("{:>5} {:>8} {:>10} {:>10} {:>10} {:>10} {:>8}\n", "epoch", "step", "loss", "accuracy", "val_loss",
                 "val_acc", "time");
    } else {
      fmt::print("epoch,global_step,loss,accuracy,top_k_accuracy,val_loss,val_accuracy,val_top_k_accuracy,seconds\n");
    }
    for (const auto& e : r.epochs) {
      if (a.csv)
        fmt::print("{},{},{},{},{},{},{},{},{}\n", e.epoch, e.global_step, e.loss, e.accuracy, e.top_k_accuracy,
                   e.has_validation ? fmt::format("{}", e.val_loss) : "", e.has_validation ? fmt::format("{}", e.val_accuracy) : "",
                   e.has_validation ? fmt::format("{}", e.val_top_k_accuracy) : "", e.seconds);
      else
        fmt::print("{:>5} {:>8} {:>10.4f} {:>10.4f} {:>10} {:>10} {:>7.1f}s\n", e.epoch, e.global_step, e.loss, e.accuracy,
                   e.has_validation ? fmt::format("{:.4f}", e.val_loss) : "-",
                   e.has_validation ? fmt::format("{:.4f}", e.val_accuracy) : "-", e.seconds);
    }
    print_warnings(r);
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

int run_runs_compare(const RunsArgs& a) {
  try {
    std::vector<RunRecord> runs;
    for (const auto& d : a.dirs) runs.push_back(read_run(resolve_run(a, d)));
    const auto keys = differing_config_keys(runs);
    std::vector<std::string> header = {"run"};
    header.insert(header.end(), keys.begin(), keys.end());
    for (const char* h : {"status", "final_loss", "final_val_loss", "best_val_accuracy", "seconds"}) header.push_back(h);
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : runs) {
      std::vector<std::string> row = {r.name};
      for (const auto& k : keys) {
        std::string v = config_value(r, k);
        row.push_back(k == "model" ? fmt::format("{} layers", nlohmann::json::parse(v).value("layers", nlohmann::json::array()).size()) : v);
      }
      const EpochRecord* last = r.epochs.empty() ? nullptr : &r.epochs.back();
      row.push_back(r.status);
      row.push_back(last ? fmt::format("{:.4f}", last->loss) : "-");
      row.push_back(last && last->has_validation ? fmt::format("{:.4f}", last->val_loss) : "-");
      row.push_back(best(r));
      row.push_back(fmt::format("{:.1f}", r.duration_seconds));
      rows.push_back(std::move(row));
      print_warnings(r);
    }
    if (a.csv) {
      for (size_t i = 0; i < header.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_field(header[i]));
      fmt::print("\n");
      for (const auto& row : rows) {
        for (size_t i = 0; i < row.size(); ++i) fmt::print("{}{}", i ? "," : "", csv_field(row[i]));
        fmt::print("\n");
      }
      return kExitOk;
    }
    std::vector<size_t> width(header.size());
    for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    for (const auto& row : rows)
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    auto print_row = [&](const std::vector<std::string>& row) {
      for (size_t i = 0; i < row.size(); ++i) fmt::print("{:<{}}  ", row[i], width[i]);
      fmt::print("\n");
    };
    print_row(header);
    for (const auto& row : rows) print_row(row);
    if (keys.empty()) fmt::print("(the runs share every setting)\n");
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
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
