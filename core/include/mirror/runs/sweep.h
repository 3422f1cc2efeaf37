#pragma once
// Sweeps: a grid of settings (learning rate x batch size x logical devices, say) expanded into
// one config per combination, each trained as a normal run; and the scaling study, the grid over
// logical devices alone.

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mirror/runs/run_plan.h"
#include "mirror/train/config.h"
#include "mirror/train/settings.h"  // SweepAxis, parse_sweep_axis, with_settings

namespace mirror {

class Dataset;

struct SweepPoint {
  TrainConfig config;
  std::string label;  // "lr=0.01 batch=64"
  nlohmann::json settings = nlohmann::json::object();  // the axes' values: {"optimizer.learning_rate": 0.01}
};

// Every combination, the first axis varying slowest, each the base config with the axis values
// set. With `tries` > 1 the whole grid is run that many times, interleaved (1, 2, 4, 1, 2, 4, ...
// rather than 1, 1, 2, 2, ...) so that a machine growing busier or quieter spreads over every
// point instead of favouring one; labels then end in "try 2/3". Throws ConfigError naming the
// combination when one is not a valid config (a batch smaller than the replica count, a negative
// learning rate, ...), before anything is trained.
std::vector<SweepPoint> expand_sweep(const TrainConfig& base, const std::vector<SweepAxis>& axes, int tries = 1);

// Tries per point of a scaling study unless told otherwise: enough to see a spread.
inline constexpr int kScalingTries = 3;

// The scaling study's grid: the same config on each of these logical-device counts.
SweepAxis scaling_axis(const std::vector<int>& logical_devices = {1, 2, 4});

// The scaling study as the CLI's `sweep --scaling` and the window's Scaling study plan it.
struct ScalingStudyOptions {
  std::vector<int> logical_devices = {1, 2, 4};
  int tries = kScalingTries;          // runs of each point, interleaved; 0 or less: kScalingTries
  bool epochs_chosen = false;         // the person chose base.epochs for the study: keep it
  std::vector<SweepAxis> other_axes;  // studied too: one study per combination, varying slower than devices
};
// The study's runs: `base` on each logical-device count, one epoch each unless the epochs were
// chosen or base.max_steps limits the runs, `tries` times interleaved (expand_sweep's labels:
// "logical=2 try 1/3"). Throws ConfigError as expand_sweep does, before anything is trained.
std::vector<SweepPoint> scaling_study_points(TrainConfig base, const ScalingStudyOptions& options = {});

// A short unique id for a new sweep ("sw-20261130-141502-042": UTC time to the millisecond), so
// ids sort by when their sweeps began.
std::string new_sweep_id();

struct SweepOptions {
  std::string root;              // the folder the sweep's runs go under
  bool scaling = false;          // a scaling study: its runs open on the scaling page
  std::string id;                // empty: a new one (new_sweep_id)
  std::string lesson;            // the lesson whose runs these are (run.json's sweep.lesson); empty: none
};

// A sweep in progress: its points, planned one after another as normal recorded runs
// ("<time>-sweep-<i>", named after their values, tagged with the sweep's id, run.json saying
// where in the sweep they stand), and the datasets they train on, each loaded once. The CLI and
// the window both run sweeps through this type.
class Sweep {
 public:
  Sweep(std::vector<SweepPoint> points, SweepOptions options);

  const std::string& id() const { return options_.id; }
  bool scaling() const { return options_.scaling; }
  size_t size() const { return points_.size(); }
  // The next point's run, or nullopt when every point has been planned. Not thread-safe.
  std::optional<RunPlan> next();
  // 1-based position of the last planned run, and its label.
  size_t position() const { return next_; }
  const std::string& label(size_t position) const { return points_.at(position - 1).label; }
  // The folders planned so far, in order.
  const std::vector<std::string>& dirs() const { return dirs_; }

  // The dataset `config` trains on: loaded on first use, then shared by every run that names
  // the same dataset options. Thread-safe (a window plans on its thread and loads on the run's).
  // Throws what load_dataset throws.
  std::shared_ptr<const Dataset> dataset_for(const TrainConfig& config);
  // A dataset already loaded for these options (the window's current one), so it is not loaded again.
  void provide_dataset(const TrainConfig& config, std::shared_ptr<const Dataset> dataset);

 private:
  std::vector<SweepPoint> points_;
  SweepOptions options_;
  size_t next_ = 0;
  std::vector<std::string> dirs_;
  std::mutex datasets_mutex_;
  std::map<std::string, std::shared_ptr<const Dataset>> datasets_;  // GUARDED_BY(datasets_mutex_); by options
};

}  // namespace mirror
