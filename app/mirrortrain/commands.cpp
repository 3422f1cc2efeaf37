#include "commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>

#include "mirror/data/keras_datasets.h"
#include "mirror/data/preview.h"
#include "mirror/data/registry.h"
#include "mirror/model/cpu_gemm.h"
#include "mirror/model/presets.h"
#include "mirror/model/summary.h"
#include "mirror/runs/compare.h"
#include "mirror/runs/lesson.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "mirror/strategy/communicator.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/device.h"
#include "mirror/strategy/workers.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "mirror/util/threads.h"
#include "progress.h"
#include "tables.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"

namespace mirror::cli {

namespace {
std::string g_prog = "mirrortrain";  // "mirrortrain[rank 1]" in a worker other than rank 0
}  // namespace

int config_error(const std::exception& e) {
  fmt::print(stderr, "{}: error: {}\n", g_prog, terminal_text(e.what(), LineBreaks::kKeep));
  return kExitBadConfig;
}

namespace {
TrainControl* g_control = nullptr;
volatile std::sig_atomic_t g_interrupted = 0;  // the signal that stopped the run; 0: none

extern "C" void on_signal(int sig) {
  g_interrupted = sig;
  if (g_control) g_control->stop.store(true);
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
    fmt::print("{}", terminal_text(format_summary(c.model.name, a), LineBreaks::kKeep));
    if (!a.ok()) {
      fmt::print(stderr, "mirrortrain: error: model does not fit dataset '{}': {}\n", terminal_text(data->info().name),
                 terminal_text(a.describe_errors(), LineBreaks::kKeep));
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
    fmt::print("{} from {}\n", terminal_text(info.name), terminal_text(info.source));
    fmt::print("train {} / validation {} examples, input {}{}\n", data->size(Split::kTrain),
               data->size(Split::kValidation), format_shape(info.input_shape),
               info.kind == InputKind::kTokens ? fmt::format(", token ids below {}", info.vocab_size) : "");
    const auto train_counts = data->class_counts(Split::kTrain);
    const auto val_counts = data->class_counts(Split::kValidation);
    fmt::print("{} classes (train / validation examples):\n", info.num_classes);
    for (int64_t k = 0; k < info.num_classes; ++k)
      fmt::print("  {:>3} {:<16} {:>6} / {}\n", k,
                 k < static_cast<int64_t>(info.class_names.size()) ? terminal_text(info.class_names[static_cast<size_t>(k)]) : "",
                 train_counts[static_cast<size_t>(k)], val_counts[static_cast<size_t>(k)]);
    for (const auto& p : preview_examples(*data, Split::kTrain, samples)) {
      std::string text = p.text;
      if (text.empty())  // dense inputs: the first few values
        for (size_t k = 0; k < std::min<size_t>(p.values.size(), 8); ++k) text += fmt::format("{:.3g} ", p.values[k]);
      if (text.size() > 600) {
        text.resize(600);
        text += " ...";
      }
      fmt::print("example {} label {} {}: {}\n", p.index, p.label, terminal_text(p.label_name), terminal_text(text));
    }
    return kExitOk;
  } catch (const ConfigError& e) {
    return config_error(e);
  } catch (const DataError& e) {
    return config_error(e);
  }
}

namespace {
// The config `train` builds from its options (everything but recording). Throws ConfigError.
TrainConfig train_config(const TrainArgs& args) {
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
  if (!args.lr_schedule.empty()) c.schedule = parse_lr_schedule(args.lr_schedule);
  if (args.warmup_steps != 0) c.schedule.warmup_steps = args.warmup_steps;
  if (args.scale_lr_with_batch != 0) c.schedule.scale_reference_batch = args.scale_lr_with_batch;
  if (!args.early_stopping.empty()) c.early_stopping = parse_early_stopping(args.early_stopping);
  if (!args.plateau.empty()) c.plateau = parse_plateau(args.plateau);
  if (args.clipnorm != 0) c.optimizer.clipnorm = args.clipnorm;
  if (args.global_clipnorm != 0) c.optimizer.global_clipnorm = args.global_clipnorm;
  if (args.clipvalue != 0) c.optimizer.clipvalue = args.clipvalue;
  c.schedule.validate();
  c.optimizer.nesterov = args.nesterov;
  if (args.devices) {
    c.devices.devices = *args.devices;
  } else if (!c.preset.empty() && find_preset(c.preset).prefer_gpu && c.devices.devices == "cpu") {
    fmt::print(stderr, "mirrortrain: note: {} trains on cuda:0 split into {} logical GPUs where a GPU is usable; "
                       "here {}, so it uses {} logical CPU devices\n",
               c.preset, c.devices.logical, cuda_report().unavailable, args.logical.value_or(c.devices.logical));
  }
  if (args.logical) c.devices.logical = *args.logical;
  c.devices.memory_limit_mib = args.memory_limit_mib;
  c.max_steps = args.max_steps;
  c.strategy.communicator = args.communicator;
  check_communicator_name(c.strategy.communicator);
  c.strategy.sync_check_every = args.sync_every;
  c.strategy.intra_op_threads = args.threads;
  c.strategy.deterministic = args.deterministic;
  c.strategy.top_k = args.top_k;
  return c;
}

// --config FILE: a run's whole config, from a run.json or a bare config object, with only the
// flags that say where and how long to train applied on top.
TrainConfig config_file(const TrainArgs& args) {
  const nlohmann::json j = parse_json_file(args.config_file, kConfigFileJson);
  TrainConfig c;
  try {
    c = config_from_json(j.is_object() && j.contains("config") ? j.at("config") : j);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", args.config_file, e.what()));
  }
  if (args.epochs) c.epochs = *args.epochs;
  if (args.max_steps > 0) c.max_steps = args.max_steps;
  if (args.devices) c.devices.devices = *args.devices;
  if (args.logical) c.devices.logical = *args.logical;
  if (!args.model.data_dir.empty()) c.dataset.data_dir = args.model.data_dir;
  c.validate();
  return c;
}

// Trains `run`, printing progress (human or JSON lines). Ctrl+C and SIGTERM stop it cleanly
// after the current step, checkpointed when it is recorded.
struct Execution {
  int exit_code = kExitOk;
  bool interrupted = false;
  std::string failure;  // the run's error when it failed
};

// `quiet`: a worker other than rank 0, which prints only its errors (rank 0 reports the run).
Execution execute(RecordedRun& run, bool json, bool quiet = false) {
  Execution result;
  for (const auto& w : run.warnings()) fmt::print(stderr, "{}: warning: {}\n", g_prog, terminal_text(w, LineBreaks::kKeep));
  ProgressPrinter human(stdout, static_cast<int>(run.config().strategy.top_k));
  JsonLinesPrinter json_printer(stdout);
  EventSink silent;
  EventSink& printer = quiet ? silent : json ? static_cast<EventSink&>(json_printer) : human;

  TrainControl control;
  g_control = &control;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const RunFinished fin = run.run(printer, control);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_control = nullptr;

  if (fin.status == RunStatus::kFailed) {
    fmt::print(stderr, "{}: run failed: {}\n", g_prog, terminal_text(fin.message, LineBreaks::kKeep));
    result.exit_code = kExitRunFailed;
    result.failure = fin.message;
  } else if (fin.status == RunStatus::kStopped && g_interrupted) {
    result.exit_code = exit_code_for_signal(g_interrupted);
    result.interrupted = true;
  }
  if (quiet && fin.status != RunStatus::kFailed)
    fmt::print(stderr, "{}: {} after {} steps\n", g_prog, fin.status == RunStatus::kStopped ? "stopped" : "finished",
               fin.steps);
  return result;
}

int setup_error(const std::exception& e) {
  if (dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const DataError*>(&e)) return config_error(e);
  fmt::print(stderr, "{}: error while setting up the run: {}\n", g_prog, terminal_text(describe_exception(e), LineBreaks::kKeep));
  return kExitRunFailed;
}

// The run `train` asks for: a recorded run continued (--resume), or a new one recorded in
// --run-dir, else under the runs folder, else nowhere (--no-record).
// With several workers, only rank 0 records; the others read a resumed run and write nothing.
std::unique_ptr<RecordedRun> prepare_train(const TrainArgs& args, const std::shared_ptr<WorkerGroup>& workers) {
  const bool records = !workers || workers->rank() == 0;
  if (!args.resume.empty()) {
    ResumeOptions options;
    if (args.epochs) options.epochs = *args.epochs;
    if (args.max_steps > 0) options.max_steps = args.max_steps;
    if (args.logical) options.logical = *args.logical;
    options.workers = workers;
    options.record = records;
    auto run = RecordedRun::resume(args.resume, options);
    if (!args.json && records)
      fmt::print("Resuming {} from step {} ({})\n", terminal_text(run->dir()), run->resumed_from_step(),
                 terminal_text(run->resumed_from_checkpoint()));
    return run;
  }
  RunPlan plan;
  if (!args.config_file.empty()) {
    plan.config = config_file(args);
  } else {
    plan.config = train_config(args);
    plan.config.checkpoints.every_steps = args.checkpoint_every;
  }
  plan.dir = !args.run_dir.empty() ? args.run_dir : args.no_record ? std::string() : plan_run_dir(default_runs_root(), plan.config);
  plan.workers = workers;
  if (!records) plan.dir.clear();
  auto run = std::make_unique<RecordedRun>(std::move(plan));
  if (!run->dir().empty() && !args.json) fmt::print("Recording to {}\n", terminal_text(run->dir()));
  return run;
}
}  // namespace

int run_train(const TrainArgs& args, char** argv) {
  std::optional<WorkerEnv> env;
  try {
    env = worker_env();
  } catch (const std::exception& e) {
    return config_error(e);
  }
  if (args.nproc > 1 && !env) return launch_local_workers(args.nproc, argv);
  std::shared_ptr<WorkerGroup> workers;
  if (env) {
    if (env->rank > 0) g_prog = fmt::format("mirrortrain[rank {}]", env->rank);
    try {
      workers = WorkerGroup::connect(*env, std::chrono::seconds(args.timeout_s));
    } catch (const std::exception& e) {
      return setup_error(e);
    }
    if (env->rank == 0 && !args.json) {
      fmt::print("Workers: {} processes started by {}, meeting at {} (hosts: {})\n", env->world_size,
                 env->launcher, meeting_place(*env), terminal_text(fmt::format("{}", fmt::join(workers->hosts(), ", "))));
      if (env->store_dir.empty() && !env->launcher_serves_store && !store_binds_master_addr())
        fmt::print("Note: the workers' store listens on port {} of every interface of this machine (LibTorch {} cannot "
                   "bind one address) and is not authenticated: run across machines on a trusted network only\n",
                   env->master_port, TORCH_VERSION);
    }
  }
  std::unique_ptr<RecordedRun> run;
  try {
    run = prepare_train(args, workers);
  } catch (const std::exception& e) {
    return setup_error(e);
  }
  return execute(*run, args.json, workers && workers->rank() != 0).exit_code;
}

int run_presets() {
  for (const auto& p : presets())
    fmt::print("{:<14} dataset {:<15} {} x{} batch {}, {}, {}\n    {}\n", p.name, p.dataset, p.optimizer,
               p.learning_rate, p.batch_size, counted(p.epochs, "epoch"), counted(p.logical_devices, "logical device"),
               p.description);
  return kExitOk;
}

int run_devices() {
  for (const auto& d : list_physical_devices()) fmt::print("{:<8} {}\n", d.name, d.model);
  const CudaReport& cuda = cuda_report();
  fmt::print("LibTorch {}, BLAS: {}, CPU layers' GEMM: {}\n", TORCH_VERSION, blas_vendor(), cpu_gemm::library());
  if (!cuda.runtime_version.empty())
    fmt::print("CUDA runtime {}, driver {}\n", cuda.runtime_version,
               cuda.driver_version.empty() ? "none" : cuda.driver_version);
  if (!cuda.unavailable.empty()) {
    fmt::print("GPUs: none usable: {}\n", cuda.unavailable);
    for (const auto& g : cuda.gpus)
      fmt::print("         seen: {} ({} MiB, compute capability {}.{})\n", g.name, g.memory_mib, g.compute_major,
                 g.compute_minor);
  }
  // Each backend, judged for two replicas on CPU and (when there is one) on the first GPU.
  std::vector<std::pair<std::string, std::vector<LogicalDevice>>> cases;
  cases.emplace_back("cpu", resolve_devices(DeviceRequest{"cpu", 2, 0}, list_physical_devices()));
  for (const auto& d : list_physical_devices())
    if (d.type == DeviceType::kCuda) {
      cases.emplace_back(d.name, resolve_devices(DeviceRequest{d.name, 2, 0}, list_physical_devices()));
      break;
    }
  fmt::print("\nAll-reduce backends (--communicator), for 2 replicas on each device kind:\n");
  for (const auto& b : CommunicatorRegistry::instance().backends()) {
    fmt::print("  {:<14} {}\n", b.name, b.summary);
    for (const auto& [kind, devices] : cases) {
      const std::string why = b.unavailable(devices);
      fmt::print("  {:<14}   {}: {}\n", "", kind, why.empty() ? "available" : "not available: " + why);
    }
  }
  return kExitOk;
}

int run_datasets() {
  for (const auto& d : list_datasets())
    fmt::print("{:<15} {}{}\n", d.name, d.summary, d.default_dir.empty() ? "" : fmt::format(" [{}]", d.default_dir));
  return kExitOk;
}

namespace {
// "lr=0.1" from a sweep run named "lr=0.1 logical=2 try 1/3": its settings other than devices and tries.
std::string sweep_label_without_devices(const RunRecord& r) {
  std::string out;
  std::istringstream words(r.meta.name);
  std::string word;
  while (words >> word)
    if (word.rfind("logical=", 0) != 0 && word != "try" && word.find('/') == std::string::npos)
      out += (out.empty() ? "" : " ") + word;
  return out;
}
}  // namespace

// Trains the sweep's runs one after another (until one is interrupted), reading each back into
// `done` and telling `ended` how it went. Returns kExitOk, or the exit code of a run that could not
// be set up.
int train_sweep(Sweep& sweep, bool json, std::vector<RunRecord>& done,
                const std::function<void(size_t position, const Execution&)>& ended) {
  while (auto plan = sweep.next()) {
    std::unique_ptr<RecordedRun> run;
    try {
      auto data = sweep.dataset_for(plan->config);
      run = std::make_unique<RecordedRun>(*plan, std::move(data));
    } catch (const std::exception& e) {
      return setup_error(e);
    }
    if (!json)
      fmt::print("\n[{}/{}] {} -> {}\n", sweep.position(), sweep.size(), terminal_text(sweep.label(sweep.position())),
                 terminal_text(run->dir()));
    const Execution r = execute(*run, json);
    done.push_back(read_run(run->dir()));
    ended(sweep.position(), r);
    if (r.interrupted) break;
  }
  return kExitOk;
}

int run_sweep(const SweepArgs& args) {
  std::unique_ptr<Sweep> sweep;
  try {
    TrainConfig base = train_config(args.train);
    base.checkpoints.every_steps = args.train.checkpoint_every;
    // `--grid lr=0.01 0.1 batch=32 64`: a word without '=' is one more value of the setting before it.
    std::vector<std::string> specs;
    for (const auto& word : args.grid) {
      if (word.find('=') == std::string::npos && !specs.empty()) specs.back() += " " + word;
      else specs.push_back(word);
    }
    std::vector<SweepAxis> axes;
    for (const auto& spec : specs) axes.push_back(parse_sweep_axis(spec, base));
    if (args.scaling) axes.push_back(scaling_axis(args.scaling_devices));
    if (axes.empty()) throw ConfigError("give --grid KEY=V1,V2 (repeatable) or --scaling");
    if (args.scaling && base.max_steps == 0 && !args.train.epochs) base.epochs = 1;
    const std::string root = args.train.run_dir.empty() ? default_runs_root() : args.train.run_dir;
    const int tries = args.tries > 0 ? args.tries : args.scaling ? kScalingTries : 1;
    sweep = std::make_unique<Sweep>(expand_sweep(base, axes, tries), SweepOptions{root, args.scaling, {}, {}});
    if (!args.train.json) fmt::print("Sweep {}: {} under {}\n", sweep->id(), counted(static_cast<int64_t>(sweep->size()), "run"), root);
  } catch (const std::exception& e) {
    return setup_error(e);
  }
  std::vector<RunRecord> done;
  int exit_code = kExitOk;
  if (const int setup = train_sweep(*sweep, args.train.json, done,
                                    [&exit_code](size_t, const Execution& r) { exit_code = r.exit_code != kExitOk ? r.exit_code : exit_code; });
      setup != kExitOk)
    return setup;
  if (!args.train.json && !done.empty()) {
    fmt::print("\n");
    if (done.size() > 1) print_comparison(done, false);
    if (args.scaling)  // one study per setting of the other axes (--grid lr=... with --scaling)
      for (const auto& group : scaling_groups(done)) {
        const std::string label = sweep_label_without_devices(group.front());
        fmt::print("\n{}", label.empty() ? "" : "Scaling study for " + terminal_text(label) + ":\n");
        print_scaling(group, false);
      }
  }
  return exit_code;
}

namespace {
// `text` wrapped at `width` columns, each line indented by `indent` spaces.
std::string wrapped(const std::string& text, size_t width, size_t indent) {
  std::string out, line;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

int list_lessons() {
  std::vector<std::string> warnings;
  const auto all = lessons(&warnings);
  for (const auto& w : warnings)
    fmt::print(stderr, "{}: warning: lesson skipped: {}\n", g_prog, terminal_text(w, LineBreaks::kKeep));
  for (const auto& l : all)
    fmt::print("{:<15} {} ({}{})\n", terminal_text(l.name), terminal_text(l.title),
               counted(static_cast<int64_t>(l.runs.size()), "run"), l.source == "built-in" ? "" : ", " + terminal_text(l.source));
  fmt::print("\nYour own lessons go in {} (JSON; see the README's Lessons section).\n", lessons_dir());
  return kExitOk;
}
}  // namespace

int run_lesson(const LessonArgs& args) {
  if (args.name.empty()) return list_lessons();
  Lesson lesson;
  std::unique_ptr<Sweep> sweep;
  try {
    lesson = find_lesson(args.name);
    const LessonPlan plan = plan_lesson(lesson, args.max_steps);
    const std::string root = args.root.empty() ? default_runs_root() : args.root;
    if (!args.json) {
      fmt::print("{}\n\n", terminal_text(lesson.title));
      for (const auto& p : lesson.text) fmt::print("{}\n", terminal_text(wrapped(p, 78, 2), LineBreaks::kKeep));
      for (const auto& n : plan.notes) fmt::print("Note: {}\n", terminal_text(n, LineBreaks::kKeep));
      fmt::print("Training {} under {}\n", counted(static_cast<int64_t>(plan.points.size()), "run"), root);
    }
    sweep = std::make_unique<Sweep>(plan.points, SweepOptions{root, lesson.scaling, {}, lesson.name});
  } catch (const std::exception& e) {
    return setup_error(e);
  }
  std::vector<RunRecord> done;
  std::vector<std::string> outcomes;
  int exit_code = kExitOk;
  const int setup = train_sweep(*sweep, args.json, done, [&](size_t position, const Execution& r) {
    const LessonRun& run = lesson.runs.at(position - 1);
    std::string outcome = r.interrupted ? "interrupted" : r.failure.empty() ? "finished" : "failed: " + r.failure;
    if (!run.expect_failure.empty()) {
      if (r.failure.find(run.expect_failure) != std::string::npos) {
        outcome = "failed, as the lesson means it to: " + r.failure;
      } else if (!r.interrupted) {
        outcome += fmt::format(" (the lesson expected it to fail with \"{}\")", run.expect_failure);
        exit_code = kExitRunFailed;
      }
    } else if (r.exit_code != kExitOk) {
      exit_code = r.exit_code;
    }
    outcomes.push_back(fmt::format("{}. {}: {}", position, run.label, outcome));
  });
  if (setup != kExitOk) return setup;
  if (!args.json && !done.empty()) {
    fmt::print("\n{}\n", terminal_text(lesson.title));
    for (const auto& o : outcomes) fmt::print("  {}\n", terminal_text(o, LineBreaks::kKeep));  // whole: a message to grep or copy
    fmt::print("\n");
    if (done.size() > 1) print_comparison(done, false);
    if (lesson.scaling) print_scaling(done, false);
    fmt::print("\nOpen them in the window: mirrorbench --lesson {}\n", terminal_text(lesson.name));
  }
  return exit_code;
}

}  // namespace mirror::cli
