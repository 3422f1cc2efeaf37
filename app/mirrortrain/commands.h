#pragma once
// The subcommands of `mirrortrain`. Each returns the process exit code: 0 success, 1 a failed
// run, 2 bad usage or configuration (after printing one line saying what and why).

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "mirror/model/presets.h"
#include "mirror/runs/sweep.h"
#include "mirror/train/overrides.h"
#include "mirror/strategy/local_workers.h"

namespace mirror::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;
inline constexpr int kExitBadConfig = 2;
// A run stopped by a signal exits as shells report a process killed by it (128 + its number),
// as core reports a worker process that a signal ended.
using mirror::exit_code_for_signal;

// Options shared by `train`, `summary` and `inspect`: a preset, and the flags given on top of it.
// An override left unset keeps the preset's value: defaults live in core, not here.
struct ModelArgs {
  std::string preset = kDefaultPreset;
  std::optional<std::string> model_file;
  bool fresh_weights = false;  // a .keras model file: weights drawn from the seed, not the file's
  ConfigOverrides overrides;
};

struct TrainArgs {
  ModelArgs model;               // the preset and every setting given (model.overrides)
  std::string run_dir;
  bool json = false;
  std::string resume;            // a run directory to continue
  bool accept_changed_data = false;  // --resume on data other than the run recorded
  bool no_record = false;        // without --run-dir: do not record under the default runs folder
  std::string config_file;       // a whole TrainConfig as JSON (a run.json, or what the window saves)
  int nproc = 0;                 // launch this many local worker processes (>= 2), each with the same flags
  int timeout_s = 60;            // how long workers wait for each other (rendezvous, collectives)
  std::string trace_file;        // --trace: write these steps' timelines as a Chrome trace here; empty: none
  std::string trace_steps = "1-20";  // --trace-steps A-B
  bool print_config = false;     // print the config as JSON (what --config reads) and train nothing
  // The settings given on top of the preset (or, with --config, of the file's config).
  const ConfigOverrides& overrides() const { return model.overrides; }
};

// `sweep`: the train options as the base, then a grid of settings, one run per combination.
struct SweepArgs {
  TrainArgs train;                // --run-dir is the folder the sweep's runs go under
  std::vector<std::string> grid;  // "lr=0.01,0.1", one per axis
  bool scaling = false;           // add the scaling study's axis (logical devices)
  std::vector<int> scaling_devices = ScalingStudyOptions{}.logical_devices;
  int tries = 0;                  // runs of each point, interleaved; 0: kScalingTries for --scaling, else 1
};

// `lesson [NAME]`: a lesson's runs trained in order (the list of lessons without NAME).
struct LessonArgs {
  std::string name;      // a lesson's name or the path of its .json file; empty: list them
  int64_t max_steps = 0; // cap every run (a quick rehearsal); 0: as the lesson says
  std::string root;      // the folder its runs go under; empty: the runs folder
  bool json = false;
};

struct RunsArgs {
  std::string root;               // empty: the default runs folder
  std::vector<std::string> dirs;  // show / compare
  bool csv = false;
};

// `export RUN`: the run's trained model as a PyTorch state dict + model.py, or as ONNX.
struct ExportArgs {
  std::string run;                  // a run directory, or its name under the runs folder
  std::string root;                 // empty: the default runs folder
  std::string format = "pt";
  std::string out_dir;              // empty: <run>/export
  std::string checkpoint = "last";  // last | best | a checkpoint file
  int64_t sample = 16;
};

// `predict RUN...`: the what-if fitted to runs' step timelines (one run, or a scaling study),
// predicted for more devices, as the window's scaling page predicts the same runs.
struct PredictArgs {
  std::vector<std::string> runs;    // run directories, or their names under the runs folder
  std::string root;                 // empty: the default runs folder
  std::string link;                 // --link text; empty: the runs' own measured link
  std::string algorithm = "ring";
  std::string devices;              // empty: 1, 2, 4, ..., 512 and each count the runs measured
  std::string scaling;              // weak | strong; empty: strong for a study of one global batch, else weak
  int devices_per_node = 8;         // hierarchical
  bool json = false;
  bool list_links = false;          // --links: the presets, no run needed
};

// `train --nproc N`: runs N copies of this command line (`argv`) as local worker processes that
// meet over c10d on 127.0.0.1, forwards SIGINT and SIGTERM to them, and returns rank 0's exit
// code, else the first failing worker's.
int launch_local_workers(int n, char** argv);

// Prints "mirrortrain: error: <what>" and returns kExitBadConfig.
int config_error(const std::exception& e);

// `train`: one process, one of several workers (torchrun, Slurm), or --nproc N of them launched here.
int run_train(const TrainArgs& args, char** argv);
// Trains every combination of the grid one after another, each recorded as a normal run tagged
// with the sweep's id, then prints their comparison (and with --scaling the scaling table).
int run_sweep(const SweepArgs& args);
// Prints the lesson's text, trains its runs as a sweep tagged with the lesson, and reports each
// run's outcome; a run the lesson expects to fail (Broken sync) failing that way is not an error.
int run_lesson(const LessonArgs& args);
int run_summary(const ModelArgs& args);
// `evaluate`: the validation loss and accuracies of the model's starting weights (a .keras
// --model-file's, else drawn from the seed); with sample_out also sample_input.npy and
// sample_output.npy there, as `export` writes them.
struct EvaluateArgs {
  int64_t batch = 0;       // examples a batch; 0: the run's evaluation batch
  int64_t sample = 16;     // examples in the sample
  std::string sample_out;  // folder for the sample; empty: none
  bool json = false;       // one JSON object
};
int run_evaluate(const ModelArgs& args, const EvaluateArgs& e);
// Describes a dataset: sizes, shapes, classes with counts, and the first `samples` training
// examples (token datasets decoded to words when a word index is known).
// `write_keras_npz`: also writes the dataset's examples there as a Keras reuters.npz ("": not).
int run_inspect(const ModelArgs& args, int samples, const std::string& write_keras_npz = {});
int run_presets();
int run_runs_list(const RunsArgs& args);
int run_runs_show(const RunsArgs& args);
int run_runs_compare(const RunsArgs& args);
int run_export(const ExportArgs& args);
// `trace RUN`: a recorded run's step timelines (timeline.jsonl) as a Chrome trace.
int run_trace(const std::string& run, const std::string& root, const std::string& steps, const std::string& output);
// Throws ConfigError, naming `flag`, unless `path` can be a file to write: its folder exists and it is not a folder.
void check_trace_file(const std::string& path, const char* flag);
// Prints the predicted table (devices, step ms, samples/s, speed-up, efficiency, comm share) and
// where the run turns communication-bound; --json: one JSON object. --links: the link presets.
int run_predict(const PredictArgs& args);
// A run directory as given, else its name under `root` (the default runs folder when empty).
// Throws ConfigError when neither holds a run.json.
std::string resolve_run(const std::string& root, const std::string& dir);
int run_devices();
int run_datasets();

}  // namespace mirror::cli
