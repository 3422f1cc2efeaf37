#pragma once
// Comparing recorded runs: the settings on which they differ beside their results, and the
// scaling study's numbers (throughput, speed-up, efficiency and where each step's time goes).

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror {

// The dataset and model of a run as a person names them (the preset, else the model's name).
std::string run_dataset_label(const RunRecord& run);
std::string run_model_label(const RunRecord& run);

// One row per run: its name, the config values that differ between the runs (a differing model
// shows as its layer count), "data" when a run recorded its own data's content hash (the hash's
// first 12 hex digits, "-" for a run without one), then status, final loss, final validation
// loss, best validation accuracy and duration. Text cells, "-" where a run has no value.
struct ComparisonTable {
  std::vector<std::string> differing;  // the differing config keys, in column order
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string same_data;               // same_data_in_words(runs)
};
ComparisonTable comparison_table(const std::vector<RunRecord>& runs);

// Whether the runs saw the same data, in a sentence, from the content hashes recorded for their
// own data (RunRecord::data): "Every run saw the same data: 1 file, content hash 3f2a9c1b0d4e."
// or "The runs saw different data: ...", naming which runs saw which. Empty when no run recorded
// a content hash (built-in and generated data record none).
std::string same_data_in_words(const std::vector<RunRecord>& runs);

// One run of a scaling study: the same config on `replicas` devices, measured once.
struct ScalingRow {
  std::string run;              // display name
  int replicas = 1;
  int physical_devices = 1;
  double samples_per_sec = 0;   // steady state: the first half of the steps (at least one) left out as warm-up
  double speedup = 1;           // against the row with the fewest replicas
  double ideal_speedup = 1;     // what perfect scaling would give: more physical devices, not more logical ones
  double efficiency = 1;        // speedup / ideal_speedup
  double step_ms = 0;           // mean wall time of a step
  double compute_ms = 0, allreduce_ms = 0, update_ms = 0;  // means over replicas and steps
  double other_ms = 0;          // step_ms not in the three phases (thread hand-offs, the sync check)
  int64_t steps = 0;            // steps measured
  // run.json's "machine", where recorded (older runs: 0 and -1).
  int cores = 0;                // the cores the run could use
  int intra_op_threads = 0;     // per replica
  double load_at_start = -1, load_at_end = -1;  // 1-minute load average
  double other_programs_cores = -1;              // CPU other programs kept busy during the run, in cores
};
// Rows ordered by replica count. Runs without steps are left out.
std::vector<ScalingRow> scaling_rows(const std::vector<RunRecord>& runs);

// Every try of one replica count, summarised: medians, and the slowest and fastest try.
struct ScalingPoint {
  int replicas = 1;
  int physical_devices = 1;
  int intra_op_threads = 0;     // per replica (0: not recorded)
  int tries = 0;
  double samples_per_sec = 0;   // median of the tries
  double samples_per_sec_low = 0, samples_per_sec_high = 0;  // slowest and fastest try
  double spread = 0;            // (fastest - slowest) / median: 0.2 means the tries ranged over 20%
  double speedup = 1;           // median against the baseline's median
  double speedup_low = 1, speedup_high = 1;  // this point's slowest and fastest try against that median
  double ideal_speedup = 1;
  double efficiency = 1;        // speedup / ideal_speedup
  double step_ms = 0, compute_ms = 0, allreduce_ms = 0, update_ms = 0, other_ms = 0;  // medians
};

// A scaling study read whole: its runs, a point per replica count, how much to trust them, and
// the paragraph a person reads. Tries of one count are runs of the same config (a study run with
// repeats interleaves them: 1, 2, 4, 1, 2, 4, ...).
struct ScalingStudy {
  std::vector<ScalingRow> runs;
  std::vector<ScalingPoint> points;   // fewest replicas first; the first is the baseline
  int cores = 0;                      // of the machine that measured (0: not recorded)
  double first_load = -1;             // load average when the first run started (-1: not recorded)
  double highest_load = -1;           // the highest load average any run saw at its start or end
  double other_programs_cores = -1;   // the most CPU other programs took during one run
  double largest_spread = 0;          // of any point measured more than once
  bool measured_once = true;          // no point has two tries: the spread is unknown
  bool noisy = false;                 // some point's tries spread over more than kNoisySpread of its median
  bool busy = false;                  // other programs took CPU (or, where that was not measured, the
                                      // load average was above the cores when the first run started)
  bool mixed = false;                 // the runs differ in more than their devices: no points, and the
                                      // reading says in what (see scaling_groups)
  std::string baseline;               // which run is the baseline and the threads it and the others used
  std::string load;                   // the load average the runs saw, in words (always said)
  std::string reading;                // the explanation, or why the numbers cannot be explained
  // The reading in words a student follows (no threads, load averages or medians): what got
  // faster or slower and why, or why these numbers cannot be trusted. reading, baseline and load
  // are its details.
  std::string plain;
};
inline constexpr double kNoisySpread = 0.2;
// Other programs using this many cores (or a tenth of the machine, if more) make a machine busy.
inline constexpr double kBusyCores = 0.25;
ScalingStudy scaling_study(const std::vector<RunRecord>& runs);
// The runs split by their config apart from the devices, in order of first appearance: each
// group is one scaling study (a sweep over learning rates and devices holds one per rate).
std::vector<std::vector<RunRecord>> scaling_groups(const std::vector<RunRecord>& runs);

// A few sentences reading the points: where the time goes as replicas are added and why the
// speed-up is what it is. Empty for fewer than two points.
std::string explain_scaling(const std::vector<ScalingPoint>& points);
// The same in words a student follows: the speeds, the speed-up, and where the time went.
std::string explain_scaling_plainly(const std::vector<ScalingPoint>& points);

}  // namespace mirror
