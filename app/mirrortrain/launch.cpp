// `train --nproc N`: local worker processes started the way torchrun starts them.
#include <fmt/format.h>
#include <signal.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "mirror/strategy/local_workers.h"

namespace mirror::cli {

namespace {
std::vector<pid_t> g_children;

extern "C" void forward_signal(int sig) {
  for (pid_t p : g_children)
    if (p > 0) kill(p, sig);
}
}  // namespace

int launch_local_workers(int n, char** argv) {
  std::vector<std::string> args;
  std::error_code ec;
  args.push_back(std::filesystem::read_symlink("/proc/self/exe", ec).string());
  if (ec) args[0] = argv[0];
  for (char** a = argv + 1; *a; ++a) args.emplace_back(*a);
  // The workers meet in a folder of their own, removed when this function returns (after all of
  // them have exited): no port, so MASTER_PORT does not matter and two runs never meet.
  std::unique_ptr<LocalRendezvous> where;
  try {
    where = std::make_unique<LocalRendezvous>();
  } catch (const std::exception& e) {
    fmt::print(stderr, "mirrortrain: error: {}\n", e.what());
    return kExitRunFailed;
  }
  g_children.reserve(static_cast<size_t>(n));  // never reallocated while a signal may read it
  std::signal(SIGINT, forward_signal);
  std::signal(SIGTERM, forward_signal);
  for (int rank = 0; rank < n; ++rank) {
    try {
      g_children.push_back(spawn_worker(args, local_worker_env(rank, n, *where, "mirrortrain --nproc")));
    } catch (const std::exception& e) {
      fmt::print(stderr, "mirrortrain: error: {}\n", e.what());
      forward_signal(SIGTERM);
      break;
    }
  }
  // Rank 0's exit code, else the first failing worker's.
  int code = g_children.empty() ? kExitRunFailed : kExitOk;
  for (size_t r = 0; r < g_children.size(); ++r) {
    const int c = wait_for_worker(g_children[r]);
    g_children[r] = -1;
    if (c != 0 && (code == 0 || r == 0)) code = c;
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  return code;
}

}  // namespace mirror::cli
