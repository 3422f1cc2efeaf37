#include "mirror/strategy/cuda_graphs.h"

#include <fmt/format.h>

#include <algorithm>

#include "mirror/util/error.h"

namespace mirror {

const std::vector<std::string>& cuda_graph_modes() {
  static const std::vector<std::string> modes = {"auto", "on", "off"};
  return modes;
}

void check_cuda_graph_mode(const std::string& mode) {
  const auto& modes = cuda_graph_modes();
  if (std::find(modes.begin(), modes.end(), mode) == modes.end())
    throw ConfigError(fmt::format("invalid --cuda-graphs '{}': choose auto, on or off", mode));
}

std::string why_not_captured(const GraphFacts& f) {
  if (!f.built) return "this build has no CUDA graphs: it needs a CUDA LibTorch (README: Building against a CUDA LibTorch)";
  if (!f.on_gpu) return "the replicas are on the CPU: CUDA graphs need GPU replicas";
  if (f.processes > 1)
    return fmt::format("the run spans {} processes: their exchange over c10d is not captured yet", f.processes);
  if (f.physical_gpus > 1)
    return fmt::format("the replicas are on {} physical GPUs: their NCCL all-reduce is not captured yet; logical "
                       "GPUs of one card are",
                       f.physical_gpus);
  if (f.simulated_link) return "--link simulates a link by waiting on the host after each all-reduce";
  if (f.clips_by_norm)
    return "clipnorm and global_clipnorm read the gradients' norms on the host (clipvalue can be captured)";
  return {};
}

GraphDecision decide_cuda_graphs(const std::string& mode, const GraphFacts& facts) {
  check_cuda_graph_mode(mode);
  GraphDecision d;
  if (mode == "off") {
    if (facts.on_gpu) d.status = "off (--cuda-graphs off): every step is launched eagerly";
    return d;
  }
  const std::string why = why_not_captured(facts);
  if (mode == "on" && !why.empty()) throw ConfigError(fmt::format("--cuda-graphs on: cannot capture this run's step: {}", why));
  if (!why.empty()) {
    if (facts.on_gpu) d.status = "eager: " + why;
    return d;
  }
  d.capture = true;
  d.status = fmt::format("the step is one CUDA graph, captured after {} eager warm-up steps of each batch size",
                         kGraphWarmupSteps);
  return d;
}

}  // namespace mirror
