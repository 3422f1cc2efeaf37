#pragma once
// Comparing recorded runs: the settings on which they differ beside their results, and the
// scaling study's numbers (throughput, speed-up, efficiency and where each step's time goes).

#include <string>
#include <vector>

#include "mirror/runs/run_reader.h"

namespace mirror {

// The dataset and model of a run as a person names them (the preset, else the model's name).
std::string run_dataset_label(const RunRecord& run);
std::string run_model_label(const RunRecord& run);

// One row per run: its name, the config values that differ between the runs (a differing model
// shows as its layer count), then status, final loss, final validation loss, best validation
// accuracy and duration. Text cells, "-" where a run has no value.
struct ComparisonTable {
  std::vector<std::string> differing;  // the differing config keys, in column order
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
ComparisonTable comparison_table(const std::vector<RunRecord>& runs);

// A scaling study's row: one run of the same config on `replicas` devices.
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
};
// Rows ordered by replica count. Runs without steps are left out.
std::vector<ScalingRow> scaling_rows(const std::vector<RunRecord>& runs);

// A few sentences reading the rows: where the time goes as replicas are added and why the
// speed-up is what it is. Empty for fewer than two rows.
std::string explain_scaling(const std::vector<ScalingRow>& rows);

}  // namespace mirror
