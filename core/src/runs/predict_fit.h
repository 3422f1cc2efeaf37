#pragma once
// What the what-if fits, before it knows where the timelines came from: predict.cpp fits them,
// predict_runs.cpp reads them (and what else a run says) from recorded runs. Private to the runs
// floor.

#include <optional>
#include <string>
#include <vector>

#include "mirror/runs/predict.h"

namespace mirror::predict_impl {

double median(std::vector<double> v);

// One run's timelines and what it says of its machine and exchange.
struct Source {
  const std::vector<StepTimeline>* timelines;
  double gradient_bytes;
  int usable_cores = 0;      // run.json machine.cores; 0: unknown
  int intra_op_threads = 0;  // machine.intra_op_threads
  bool logical_cpu = false;  // every replica a logical device of the CPU
  double exchanged_bytes = 0;  // several processes: the median bytes a process put into a step's exchange; 0: unknown
  double overlap_bytes = 0;    // of them, the buckets' during backward (--overlap), median; 0: none or unknown
};

// "540 kB", "1.3 MB".
std::string bytes_text(double b);

// The fit of fit_model over the sources' timelines pooled.
FittedModel fit_sources(const std::vector<Source>& sources, const std::optional<LinkSpec>& fallback);

}  // namespace mirror::predict_impl
