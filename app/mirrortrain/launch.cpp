// `train --nproc N`: local worker processes started the way torchrun starts them.
#include <fmt/format.h>

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
LocalWorkers* g_workers = nullptr;  // the workers a signal to this process is passed on to

extern "C" void forward_signal(int sig) {
  if (g_workers) g_workers->signal(sig);
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
  LocalWorkers workers(/*first_rank=*/0, n);
  g_workers = &workers;
  std::signal(SIGINT, forward_signal);
  std::signal(SIGTERM, forward_signal);
  int code = kExitRunFailed;
  try {
    workers.start(args, *where, "mirrortrain --nproc");
    code = workers.wait();  // rank 0's exit code, else the first failing worker's
  } catch (const std::exception& e) {
    fmt::print(stderr, "mirrortrain: error: {}\n", e.what());
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  g_workers = nullptr;
  return code;
}

}  // namespace mirror::cli
