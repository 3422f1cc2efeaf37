// `sweep`: a grid of settings (or the scaling study) trained one run after another, then compared.
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "mirror/runs/compare.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"
#include "tables.h"
#include "training.h"

namespace mirror::cli {

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
    const TrainConfig base = train_config(args.train);
    // `--grid lr=0.01 0.1 batch=32 64`: a word without '=' is one more value of the setting before it.
    std::vector<std::string> specs;
    for (const auto& word : args.grid) {
      if (word.find('=') == std::string::npos && !specs.empty()) specs.back() += " " + word;
      else specs.push_back(word);
    }
    std::vector<SweepAxis> axes;
    for (const auto& spec : specs) axes.push_back(parse_sweep_axis(spec, base));
    std::vector<SweepPoint> points;
    if (args.scaling) {
      ScalingStudyOptions study;
      study.logical_devices = args.scaling_devices;
      study.tries = args.tries;
      study.epochs_chosen = args.train.overrides().epochs.has_value();
      study.other_axes = std::move(axes);
      points = scaling_study_points(base, study);
    } else {
      if (axes.empty()) throw ConfigError("give --grid KEY=V1,V2 (repeatable) or --scaling");
      points = expand_sweep(base, axes, args.tries > 0 ? args.tries : 1);
    }
    const std::string root = args.train.run_dir.empty() ? default_runs_root() : args.train.run_dir;
    sweep = std::make_unique<Sweep>(std::move(points), SweepOptions{root, args.scaling, {}, {}});
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

}  // namespace mirror::cli
