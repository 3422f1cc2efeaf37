// `train`, and what every training command shares: configs from the flags, running a run with its
// progress printed, the errors of setting one up.
#include "commands.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>

#include "mirror/data/load_progress.h"
#include "mirror/model/presets.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/trace.h"
#include "mirror/strategy/communicator_registry.h"
#include "mirror/strategy/cuda_runtime.h"
#include "mirror/strategy/link_model.h"
#include "mirror/strategy/workers.h"
#include "mirror/train/trainer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_text.h"
#include "progress.h"
#include "training.h"

namespace mirror::cli {

std::string g_prog = "mirrortrain";

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
}  // namespace

namespace {
// --image-size: "HEIGHTxWIDTH" or one number for both, each 1..4096.
std::pair<int64_t, int64_t> parse_image_size(const std::string& text) {
  const auto whole = [&](const std::string& part) -> int64_t {
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || v < 1 || v > 4096)
      throw ConfigError(fmt::format("--image-size '{}': write HEIGHTxWIDTH (e.g. 64x64) or one size, each 1 to 4096",
                                    terminal_text(text)));
    return v;
  };
  const size_t x = text.find_first_of("xX");
  if (x == std::string::npos) {
    const int64_t side = whole(text);
    return {side, side};
  }
  return {whole(text.substr(0, x)), whole(text.substr(x + 1))};
}
}  // namespace

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
  c.dataset.validation_split = a.validation_split;
  if (!a.image_size.empty()) {
    const auto [height, width] = parse_image_size(a.image_size);
    c.dataset.image_height = height;
    c.dataset.image_width = width;
  }
  c.dataset.color_mode = a.color_mode;
  c.dataset.crop_to_aspect_ratio = a.crop_to_aspect_ratio;
  c.dataset.follow_links = a.follow_links;
  c.dataset.label_column = a.label_column;
  c.seed = a.seed;
  return c;
}

namespace {
// --link: the classroom what-if, a simulated link under every all-reduce.
void apply_link(const TrainArgs& args, TrainConfig& c) {
  if (args.link.empty()) return;
  c.strategy.link = parse_link(args.link);
  c.strategy.link->simulated = true;
}
}  // namespace

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
  c.strategy.cuda_graphs = args.cuda_graphs;
  c.strategy.top_k = args.top_k;
  apply_link(args, c);
  return c;
}

namespace {
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
  apply_link(args, c);
  c.validate();
  return c;
}
}  // namespace

Execution execute(RecordedRun& run, bool json, bool quiet, EventSink* also) {
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
  TeeSink tee({&printer, also});
  const RunFinished fin = run.run(also ? static_cast<EventSink&>(tee) : printer, control);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_control = nullptr;

  result.status = fin.status;
  result.message = fin.message;
  if (fin.status == RunStatus::kFailed) {
    fmt::print(stderr, "{}: run failed: {}\n", g_prog, terminal_text(fin.message, LineBreaks::kKeep));
    result.exit_code = kExitRunFailed;
  } else if (fin.status == RunStatus::kStopped && g_interrupted) {
    result.exit_code = exit_code_for_signal(g_interrupted);
    result.interrupted = true;
  }
  if (quiet && fin.status != RunStatus::kFailed)
    fmt::print(stderr, "{}: {} after {} steps\n", g_prog, run_status_name(fin.status), fin.steps);
  return result;
}

int setup_error(const std::exception& e) {
  if (dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const DataError*>(&e)) return config_error(e);
  fmt::print(stderr, "{}: error while setting up the run: {}\n", g_prog, terminal_text(describe_exception(e), LineBreaks::kKeep));
  return kExitRunFailed;
}

namespace {
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
    options.accept_changed_data = args.accept_changed_data;
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

namespace {
// --trace FILE --trace-steps A-B, checked before anything starts: the range, and a folder to write into.
std::optional<TraceOptions> trace_options(const TrainArgs& args) {
  if (args.trace_file.empty()) return std::nullopt;
  TraceOptions o;
  o.steps = parse_step_range(args.trace_steps);
  check_trace_file(args.trace_file, "--trace");
  return o;
}

void report_trace(const TraceRecorder& trace, bool json) {
  std::FILE* out = json ? stderr : stdout;  // --json keeps stdout to the events
  if (trace.written()) {
    const TraceWritten& w = trace.result();
    fmt::print(out, "Trace: {} ({} steps, {} bytes; open it in ui.perfetto.dev or chrome://tracing)\n",
               terminal_text(w.path), w.steps, w.bytes);
  } else {
    fmt::print(stderr, "{}: warning: no trace written: {}\n", g_prog, terminal_text(trace.error(), LineBreaks::kKeep));
  }
}
}  // namespace

int run_train(const TrainArgs& args, char** argv) {
  std::optional<TraceOptions> trace;
  try {
    trace = trace_options(args);
  } catch (const std::exception& e) {
    return config_error(e);
  }
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
    // Reading the user's own files (images, texts) can take a while: say how far it has got, on
    // stderr (redrawn in place on a terminal; else where it starts and ends).
    const bool tty = isatty(fileno(stderr)) != 0;
    ScopedLoadProgress progress([tty](const LoadProgress& p) {
      if (!tty && p.done != 0 && p.done != p.total) return;
      fmt::print(stderr, "{}{}: {}/{}{}", tty ? "\r" : "", terminal_text(p.what), p.done, p.total,
                 !tty || p.done == p.total ? "\n" : "");
    });
    run = prepare_train(args, workers);
  } catch (const std::exception& e) {
    return setup_error(e);
  }
  // The trace is rank 0's: its timelines hold every process's replicas.
  std::unique_ptr<TraceRecorder> recorder;
  if (trace && (!workers || workers->rank() == 0)) {
    if (workers) trace->hosts = workers->hosts();
    recorder = std::make_unique<TraceRecorder>(args.trace_file, *trace);
  }
  const int code = execute(*run, args.json, workers && workers->rank() != 0, recorder.get()).exit_code;
  if (recorder) {
    recorder->flush();
    report_trace(*recorder, args.json);
  }
  return code;
}

}  // namespace mirror::cli
