#include "mirror/util/threads.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <thread>

namespace mirror {

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

int intra_op_threads_per_replica(int replicas, int cores, int requested, int64_t shard_examples, std::string* why) {
  auto say = [why](std::string text) {
    if (why) *why = std::move(text);
  };
  if (requested > 0) {
    const int most = kMaxIntraOpThreadsPerCore * std::max(1, cores);
    if (requested > most) {
      say(fmt::format("{} requested, capped at {}: {} a core on {} cores; more threads only wait for each other",
                      requested, most, kMaxIntraOpThreadsPerCore, cores));
      return most;
    }
    say("as requested");
    return requested;
  }
  replicas = std::max(1, replicas);
  const int share = std::max(1, cores / replicas);
  const int64_t by_shard = std::max<int64_t>(1, shard_examples / kExamplesPerIntraOpThread);
  if (shard_examples > 0 && by_shard < share) {
    say(fmt::format("{} examples a replica: one thread per {}, fewer than its {} of {} cores", shard_examples,
                    kExamplesPerIntraOpThread, share, cores));
    return static_cast<int>(by_shard);
  }
  say(replicas == 1 ? fmt::format("all {} cores", cores) : fmt::format("{} cores shared by {} replicas", cores, replicas));
  return share;
}

namespace {
// OpenBLAS keeps its own thread pool, outside LibTorch's control. Look its setter up at run
// time so the build does not depend on which libblas.so.3 alternative is installed.
using SetThreadsFn = void (*)(int);
SetThreadsFn openblas_setter() {
  static SetThreadsFn fn =
      reinterpret_cast<SetThreadsFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  return fn;
}
}  // namespace

void apply_thread_budget(int threads) {
  threads = std::max(1, threads);
  at::set_num_threads(threads);
  if (auto fn = openblas_setter()) fn(threads);
}

const char* blas_vendor() {
  if (dlsym(RTLD_DEFAULT, "openblas_get_config") != nullptr) return "OpenBLAS";
  // PyPI's and PyTorch's own LibTorch builds carry MKL inside libtorch_cpu.
  if (at::globalContext().hasMKL()) return "MKL (inside LibTorch)";
  return "reference BLAS or other (slow: install libopenblas0)";
}

}  // namespace mirror
