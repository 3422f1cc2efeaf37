// WorkerGroup where this build has no c10d with Gloo: training across processes is refused.
// Tested by tests/core/strategy/test_local_workers.cpp (its refusal, in a build without c10d;
//   every build here has c10d, so only a build without it runs this file).
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"

namespace mirror {

std::shared_ptr<WorkerGroup> WorkerGroup::connect(const WorkerEnv& env, std::chrono::milliseconds,
                                                  std::chrono::milliseconds) {
  throw ConfigError(env.launcher + " started " + std::to_string(env.world_size) +
                    " workers, but this build cannot train across processes: it was configured without c10d's Gloo "
                    "(install libgloo-dev and reconfigure)");
}

bool c10d_available() { return false; }

bool c10d_nccl_built() { return false; }

bool store_binds_master_addr() { return false; }

}  // namespace mirror
