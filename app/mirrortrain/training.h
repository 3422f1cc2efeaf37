#pragma once
// What mirrortrain's training commands (train, sweep, lesson) and its describing ones (summary,
// inspect) share: the config the flags ask for, a run trained with its progress printed, the
// errors of setting one up. Internal to mirrortrain.

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "commands.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "mirror/train/config.h"

namespace mirror::cli {

// The program's name in messages: "mirrortrain", "mirrortrain[rank 1]" in a worker other than rank 0.
extern std::string g_prog;

// The config a preset gives, with the model and dataset flags applied. Throws ConfigError, DataError.
TrainConfig base_config(const ModelArgs& a);
// The config `train` builds from its options (everything but recording). Throws ConfigError.
TrainConfig train_config(const TrainArgs& args);

// How a run that execute() trained ended.
struct Execution {
  int exit_code = kExitOk;
  bool interrupted = false;
  RunStatus status = RunStatus::kFinished;
  std::string message;  // the run's last word: its error when it failed
};
// Trains `run`, printing progress (human or JSON lines). Ctrl+C and SIGTERM stop it cleanly
// after the current step, checkpointed when it is recorded. `quiet`: a worker other than rank 0,
// which prints only its errors (rank 0 reports the run). `also`: a sink that hears the run's
// events after the printer (a TraceRecorder); null: none.
Execution execute(RecordedRun& run, bool json, bool quiet = false, EventSink* also = nullptr);

// Says why a run could not be set up; returns the exit code for it (kExitBadConfig for a
// ConfigError or DataError, else kExitRunFailed).
int setup_error(const std::exception& e);

// Trains the sweep's runs one after another (until one is interrupted), reading each back into
// `done` and telling `ended` how it went. Returns kExitOk, or the exit code of a run that could not
// be set up.
int train_sweep(Sweep& sweep, bool json, std::vector<RunRecord>& done,
                const std::function<void(size_t position, const Execution&)>& ended);

}  // namespace mirror::cli
