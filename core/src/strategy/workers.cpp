#include "mirror/strategy/workers.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#include "mirror/util/error.h"

namespace mirror {

namespace {
std::optional<std::string> get(const EnvLookup& lookup, const char* name) {
  const char* v = lookup(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

int number(const EnvLookup& lookup, const char* name, const char* launcher, int min, int max) {
  const auto v = get(lookup, name);
  if (!v) throw ConfigError(fmt::format("{} started this process without {}; start it through {} as documented",
                                        launcher, name, launcher));
  size_t used = 0;
  long n = 0;
  try {
    n = std::stol(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || n < min || n > max)
    throw ConfigError(fmt::format("{}={} is not a number in [{}, {}]", name, *v, min, max));
  return static_cast<int>(n);
}
}  // namespace

std::string first_slurm_host(const std::string& nodelist) {
  std::string prefix;
  for (size_t i = 0; i < nodelist.size(); ++i) {
    const char c = nodelist[i];
    if (c == ',') break;
    if (c != '[') {
      prefix.push_back(c);
      continue;
    }
    // A range list: take its first number as written (keeping leading zeros).
    std::string first;
    for (size_t j = i + 1; j < nodelist.size() && nodelist[j] != '-' && nodelist[j] != ',' && nodelist[j] != ']'; ++j)
      first.push_back(nodelist[j]);
    return prefix + first;
  }
  return prefix;
}

std::optional<WorkerEnv> worker_env_from(const EnvLookup& lookup) {
  WorkerEnv e;
  if (get(lookup, "WORLD_SIZE") || get(lookup, "RANK")) {
    const char* who = "torchrun";
    e.launcher = get(lookup, "MIRROR_LAUNCHER").value_or(who);
    e.world_size = number(lookup, "WORLD_SIZE", who, 1, 1 << 16);
    e.rank = number(lookup, "RANK", who, 0, e.world_size - 1);
    e.local_rank = get(lookup, "LOCAL_RANK") ? number(lookup, "LOCAL_RANK", who, 0, e.world_size - 1) : e.rank;
    e.local_world_size = get(lookup, "LOCAL_WORLD_SIZE") ? number(lookup, "LOCAL_WORLD_SIZE", who, 1, e.world_size)
                                                         : e.world_size;
    e.store_dir = get(lookup, "MIRROR_STORE_DIR").value_or("");
    if (e.world_size > 1) {
      e.master_addr = get(lookup, "MASTER_ADDR").value_or("");
      if (e.master_addr.empty())
        throw ConfigError("WORLD_SIZE is set but MASTER_ADDR is not: set MASTER_ADDR to rank 0's address");
      e.master_port = e.store_dir.empty() ? number(lookup, "MASTER_PORT", who, 1, 65535) : 0;
    }
    e.launcher_serves_store = get(lookup, "TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
    if (get(lookup, "TORCHELASTIC_RESTART_COUNT")) e.attempt = number(lookup, "TORCHELASTIC_RESTART_COUNT", who, 0, 1 << 20);
    return e.world_size > 1 ? std::optional<WorkerEnv>(e) : std::nullopt;
  }
  if (get(lookup, "SLURM_PROCID") && get(lookup, "SLURM_NTASKS")) {
    const char* who = "srun";
    e.launcher = "slurm";
    e.world_size = number(lookup, "SLURM_NTASKS", who, 1, 1 << 16);
    if (e.world_size < 2) return std::nullopt;
    e.rank = number(lookup, "SLURM_PROCID", who, 0, e.world_size - 1);
    e.local_rank = get(lookup, "SLURM_LOCALID") ? number(lookup, "SLURM_LOCALID", who, 0, e.world_size - 1) : 0;
    e.local_world_size = e.world_size;
    if (const auto per_node = get(lookup, "SLURM_NTASKS_PER_NODE")) {
      const int n = std::atoi(per_node->c_str());  // "2" or "2(x3)": the leading count
      if (n > 0) e.local_world_size = std::min(n, e.world_size);
    }
    const auto nodes = get(lookup, "SLURM_STEP_NODELIST") ? get(lookup, "SLURM_STEP_NODELIST")
                                                          : get(lookup, "SLURM_JOB_NODELIST");
    if (!nodes) throw ConfigError("srun started this process without SLURM_STEP_NODELIST");
    e.master_addr = get(lookup, "MASTER_ADDR").value_or(first_slurm_host(*nodes));
    if (get(lookup, "MASTER_PORT")) {
      e.master_port = number(lookup, "MASTER_PORT", who, 1, 65535);
    } else {
      const auto job = get(lookup, "SLURM_JOB_ID");
      e.master_port = 20000 + (job ? static_cast<int>(std::strtol(job->c_str(), nullptr, 10) % 10000) : 0);
    }
    return e;
  }
  return std::nullopt;
}

std::string meeting_place(const WorkerEnv& env) {
  return env.store_dir.empty() ? fmt::format("{}:{}", env.master_addr, env.master_port) : "a private folder on this machine";
}

CrossProcessChoice choose_cross_process(const std::vector<int>& gpus, const std::vector<std::string>& hosts,
                                        bool nccl_built) {
  std::vector<int> on_cpu;
  for (size_t r = 0; r < gpus.size(); ++r)
    if (gpus[r] < 0) on_cpu.push_back(static_cast<int>(r));
  if (on_cpu.size() == gpus.size()) return {false, "c10d's Gloo"};
  if (!on_cpu.empty())
    return {false, fmt::format("c10d's Gloo through the host: rank {} trains on the CPU while others train on GPUs",
                               on_cpu.front())};
  if (!nccl_built)
    return {false, "c10d's Gloo through the host: this build has no NCCL across processes (build against a CUDA "
                   "LibTorch with NCCL)"};
  for (size_t a = 0; a < gpus.size(); ++a)
    for (size_t b = a + 1; b < gpus.size(); ++b)
      if (gpus[a] == gpus[b] && a < hosts.size() && b < hosts.size() && hosts[a] == hosts[b])
        return {false, fmt::format("c10d's Gloo through the host: ranks {} and {} share cuda:{} on {}, and NCCL "
                                   "takes one GPU per process (give each worker its own GPU for NCCL)",
                                   a, b, gpus[a], hosts[a])};
  return {true, "c10d's NCCL"};
}

std::optional<WorkerEnv> worker_env() {
  return worker_env_from([](const char* name) { return std::getenv(name); });
}

}  // namespace mirror
