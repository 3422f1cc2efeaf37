#pragma once
// What a recorded run is to be, decided before anything heavy happens: a new run's plan, or how
// to continue a recorded one. Plain values, no torch (the window plans on its GUI thread).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "mirror/runs/run_reader.h"
#include "mirror/train/config.h"

namespace mirror {

class WorkerGroup;

// A new run, fully decided before anything heavy happens (so a window can show its folder at once).
struct RunPlan {
  TrainConfig config;
  std::string dir;     // the run's folder, which must not hold a run yet; empty: not recorded
  RunMeta meta;        // name and tags for meta.json; written only when it says something
  nlohmann::json extra = nlohmann::json::object();  // members added to run.json as they are (a sweep's place)
  // Several processes train it; only one of them records (dir set), and run.json then names them.
  std::shared_ptr<WorkerGroup> workers;
};

// A fresh folder for a new run under `root`: "<UTC time>-<label>", the label defaulting to the
// config's preset, else its model's name, as a path_slug (a name holding "../" or '/' stays one
// folder inside `root`). Creates nothing.
std::string plan_run_dir(const std::string& root, const TrainConfig& config, const std::string& label = {});

// How to continue a recorded run; unset members keep what run.json recorded.
struct ResumeOptions {
  std::optional<int> epochs;         // train on until this epoch (continuing a finished run)
  std::optional<int64_t> max_steps;  // 0: no step limit
  // Logical devices per physical device. The replicas in all (processes x devices) must stay what
  // they were; the global batch, not the layout, fixes the trajectory.
  std::optional<int> logical;
  std::shared_ptr<WorkerGroup> workers;  // several processes continue it together
  bool record = true;  // false: read the run and its checkpoint, write nothing (the other processes)
  // Go on when the run's own data (a folder or table) is no longer what run.json recorded (other
  // files, or other contents): run.json then holds the new figures and, in "data_changes", the
  // step from which they apply and what was read before. Off: such a resume is refused.
  bool accept_changed_data = false;
};

}  // namespace mirror
