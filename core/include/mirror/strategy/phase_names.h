#pragma once
// The names of a step's phases, one spelling for every place that shows them: the trace export
// (runs/trace.h) and, on GPU builds, the NVTX ranges Nsight Systems shows (PhaseRange below).
// Light: no torch; NVTX's header only where the build found it (MIRROR_HAVE_NVTX).

#ifdef MIRROR_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace mirror {

inline constexpr const char* kPhaseCopy = "copy";
inline constexpr const char* kPhaseForward = "forward";
inline constexpr const char* kPhaseBackward = "backward";
inline constexpr const char* kPhaseGradientsReady = "gradients ready";
inline constexpr const char* kPhaseAllReduce = "all-reduce";
inline constexpr const char* kPhaseAllReduceSimulated = "all-reduce (simulated link)";
inline constexpr const char* kPhaseAllReduceWait = "all-reduce wait";
inline constexpr const char* kPhaseAllReduceTransfer = "all-reduce transfer";
inline constexpr const char* kPhaseExchange = "cross-process exchange";
inline constexpr const char* kPhaseOverlap = "all-reduce during backward";
inline constexpr const char* kPhaseUpdate = "update";

// An NVTX range named `name` (one of the kPhase names, a string that outlives the range) on the
// calling thread from construction to destruction, for Nsight Systems' timeline; nothing on builds
// without NVTX, and next to nothing when no profiler is attached (NVTX's calls are then no-ops).
// Not copyable; open and close it on the same thread.
class PhaseRange {
 public:
  explicit PhaseRange(const char* name) {
#ifdef MIRROR_HAVE_NVTX
    nvtxRangePushA(name);
#else
    (void)name;
#endif
  }
  ~PhaseRange() {
#ifdef MIRROR_HAVE_NVTX
    nvtxRangePop();
#endif
  }
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;
};

}  // namespace mirror
