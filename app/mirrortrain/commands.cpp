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
#include <filesystem>
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

TrainConfig base_config(const ModelArgs& a) {
  TrainConfig c = config_from_preset(a.preset);
  if (a.model_file) {
    c.model = load_model_file(*a.model_file);
    c.preset.clear();
    if (!a.fresh_weights && is_keras_archive(*a.model_file))
      c.initial_weights = std::filesystem::absolute(*a.model_file).lexically_normal().string();
  }
  return apply(a.overrides, std::move(c));
}

TrainConfig train_config(const TrainArgs& args) {
  const TrainConfig c = base_config(args.model);
  if (!args.overrides().devices && !c.preset.empty() && find_preset(c.preset).prefer_gpu && c.devices.devices == "cpu")
    fmt::print(stderr, "mirrortrain: note: {} trains on cuda:0 split into {} logical GPUs where a GPU is usable; "
                       "here {}, so it uses {} logical CPU devices\n",
               c.preset, find_preset(c.preset).logical_devices, cuda_report().unavailable, c.devices.logical);
  if (!c.initial_weights.empty())
    fmt::print(stderr, "mirrortrain: note: the run starts from the trained weights in {}; the optimizer starts afresh "
                       "(a .keras file's optimizer state is not taken; --fresh-weights: new weights)\n",
               terminal_text(c.initial_weights));
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
  // Only the flags that say where and how long to train, and the what-if's link.
  const ConfigOverrides& given = args.overrides();
  ConfigOverrides kept;
  kept.epochs = given.epochs;
  if (given.max_steps && *given.max_steps > 0) kept.max_steps = given.max_steps;
  kept.devices = given.devices;
  kept.logical = given.logical;
  kept.data_dir = given.data_dir;
  kept.link = given.link;
  return apply(kept, std::move(c));
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
    const ConfigOverrides& given = args.overrides();
    if (given.epochs) options.epochs = *given.epochs;
    if (given.max_steps && *given.max_steps > 0) options.max_steps = *given.max_steps;
    if (given.logical) options.logical = *given.logical;
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
  if (args.print_config) {
    try {
      const TrainConfig c = args.config_file.empty() ? train_config(args) : config_file(args);
      fmt::print("{}\n", to_json(c).dump(2));
      return kExitOk;
    } catch (const std::exception& e) {
      return config_error(e);
    }
  }
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
