#pragma once
// Whether a run's training step is captured as one CUDA graph (--cuda-graphs auto|on|off): every
// replica's forward, backward, the all-reduce and the update, recorded once and replayed each
// step, so that the step costs one launch instead of hundreds. Which runs can be captured is
// decided here from plain facts, so that the decision and its reasons are the same (and tested)
// in every build. Light: no torch.

#include <string>
#include <vector>

namespace mirror {

// The modes, in the order they are offered.
const std::vector<std::string>& cuda_graph_modes();
// Throws ConfigError unless `mode` is one of cuda_graph_modes().
void check_cuda_graph_mode(const std::string& mode);

// What the decision depends on, gathered by the strategy when it is built.
struct GraphFacts {
  bool built = false;           // this build has CUDA graphs (a CUDA LibTorch)
  bool on_gpu = false;          // the replicas of this process are on CUDA GPUs
  int physical_gpus = 0;        // distinct physical GPUs among them
  int processes = 1;            // processes of the run
  bool simulated_link = false;  // --link: every all-reduce waits on the host
  bool clips_by_norm = false;   // clipnorm or global_clipnorm: the norms are read on the host
};

// Why such a run's step cannot be captured, in words a person can act on; empty when it can.
std::string why_not_captured(const GraphFacts& facts);

// The decision for `mode` ("auto", "on" or "off"): capture or not, and the line that says so.
struct GraphDecision {
  bool capture = false;
  // "the step is one CUDA graph, captured after 2 eager warm-up steps", "off (--cuda-graphs off)",
  // "eager: <why_not_captured>"; empty for CPU replicas in mode auto (nothing to say).
  std::string status;
};
// Throws ConfigError when `mode` is "on" and the run cannot be captured (naming why), or when
// `mode` is not a mode.
GraphDecision decide_cuda_graphs(const std::string& mode, const GraphFacts& facts);

// Eager steps of a batch size before its step is captured: the first steps create what capture
// may not (cuBLAS and cuDNN handles and workspaces, the autograd engine's threads).
constexpr int kGraphWarmupSteps = 2;

}  // namespace mirror
