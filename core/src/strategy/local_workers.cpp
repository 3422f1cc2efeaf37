#include "mirror/strategy/local_workers.h"

#include <fmt/format.h>
#include <ftw.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

LocalRendezvous::LocalRendezvous() {
  const char* runtime = std::getenv("XDG_RUNTIME_DIR");
  std::error_code ec;
  std::filesystem::path base = runtime && *runtime && std::filesystem::is_directory(runtime, ec)
                                   ? std::filesystem::path(runtime)
                                   : std::filesystem::temp_directory_path(ec);
  if (base.empty()) base = "/tmp";
  std::string pattern = (base / "mirror-workers-XXXXXX").string();
  if (!mkdtemp(pattern.data()))  // mode 0700, a name no other process has
    throw RunError(fmt::format("cannot make a folder for the workers to meet in under {}: {}; set TMPDIR to a "
                               "writable folder", base.string(), std::strerror(errno)));
  dir_ = pattern;
}

LocalRendezvous::~LocalRendezvous() {
  // Through POSIX, not std::filesystem::remove_all: a pip torch's libtorch.so (2.11) exports its
  // own, which crashed when the tests bound to it.
  nftw(dir_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return std::remove(p); }, 8,
       FTW_DEPTH | FTW_PHYS);
}

WorkerEnv local_worker_env(int rank, int world, const LocalRendezvous& where, const std::string& launcher) {
  WorkerEnv e;
  e.rank = rank;
  e.world_size = world;
  e.local_rank = rank;
  e.local_world_size = world;
  e.master_addr = "127.0.0.1";
  e.master_port = 0;
  e.store_dir = where.dir();
  e.launcher = launcher;
  return e;
}

pid_t spawn_worker(const std::vector<std::string>& argv, const WorkerEnv& env) {
  if (argv.empty()) throw std::invalid_argument("spawn_worker: no program");
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<std::pair<std::string, std::string>> vars = {
      {"RANK", std::to_string(env.rank)},
      {"WORLD_SIZE", std::to_string(env.world_size)},
      {"LOCAL_RANK", std::to_string(env.local_rank)},
      {"LOCAL_WORLD_SIZE", std::to_string(env.local_world_size)},
      {"MASTER_ADDR", env.master_addr},
      {"MIRROR_STORE_DIR", env.store_dir},
      {"MIRROR_LAUNCHER", env.launcher}};
  if (env.master_port > 0) vars.emplace_back("MASTER_PORT", std::to_string(env.master_port));
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [k, v] : vars) replaced = replaced || k == name;
    if (!replaced) env_text.push_back(entry);
  }
  for (const auto& [k, v] : vars) env_text.push_back(k + "=" + v);
  std::vector<char*> args, envp;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const auto& e : env_text) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw RunError(fmt::format("cannot start worker {}: {}", env.rank, std::strerror(errno)));
  if (pid == 0) {
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  return pid;
}

int wait_for_worker(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : exit_code_for_signal(WTERMSIG(status));
}

LocalWorkers::LocalWorkers(int first_rank, int world) : first_rank_(first_rank), world_(world) {
  if (first_rank < 0 || first_rank > world)
    throw std::invalid_argument(fmt::format("LocalWorkers: ranks {} to {} of {}", first_rank, world - 1, world));
  pids_ = std::make_unique<std::atomic<pid_t>[]>(static_cast<size_t>(world - first_rank));
  for (int i = 0; i < world - first_rank; ++i) pids_[static_cast<size_t>(i)].store(0);
}

void LocalWorkers::start(const std::vector<std::string>& argv, const LocalRendezvous& where, const std::string& launcher) {
  for (int rank = first_rank_; rank < world_; ++rank) {
    try {
      pids_[static_cast<size_t>(rank - first_rank_)].store(spawn_worker(argv, local_worker_env(rank, world_, where, launcher)));
    } catch (...) {
      signal(SIGTERM);  // the ones already started would wait for the missing one until their timeout
      wait();
      throw;
    }
  }
}

void LocalWorkers::signal(int sig) const noexcept {
  for (int i = 0; i < world_ - first_rank_; ++i)
    if (const pid_t p = pids_[static_cast<size_t>(i)].load(); p > 0) ::kill(p, sig);
}

int LocalWorkers::wait() {
  using Clock = std::chrono::steady_clock;
  const size_t n = static_cast<size_t>(world_ - first_rank_);
  std::vector<int> codes(n, 0);
  size_t remaining = 0;
  for (size_t i = 0; i < n; ++i) remaining += pids_[i].load() > 0 ? 1 : 0;
  int first_failure = -1;  // the slot that failed first
  Clock::time_point failed_at{};
  bool terminated = false, killed = false;
  while (remaining > 0) {
    bool reaped = false;
    for (size_t i = 0; i < n; ++i) {
      const pid_t p = pids_[i].load();
      if (p <= 0) continue;
      int status = 0;
      const pid_t r = waitpid(p, &status, WNOHANG);
      if (r == 0 || (r < 0 && errno == EINTR)) continue;
      codes[i] = r < 0 ? 1 : WIFEXITED(status) ? WEXITSTATUS(status) : exit_code_for_signal(WTERMSIG(status));
      pids_[i].store(-1);
      --remaining;
      reaped = true;
      if (codes[i] != 0 && first_failure < 0) first_failure = static_cast<int>(i), failed_at = Clock::now();
    }
    // One has failed: the others normally see it and end within a second or two. One that does
    // not (stopped with SIGSTOP, or hung on a peer that is gone) is sent SIGTERM, and SIGCONT so
    // that a stopped one can act on it, then SIGKILL: nothing waits for it, and the rendezvous
    // folder goes within seconds.
    if (first_failure >= 0 && remaining > 0) {
      const auto waited = Clock::now() - failed_at;
      if (!terminated && waited >= kWorkerGrace) {
        signal(SIGTERM);
        signal(SIGCONT);
        terminated = true;
      } else if (!killed && waited >= 2 * kWorkerGrace) {
        signal(SIGKILL);
        killed = true;
      }
    }
    if (!reaped && remaining > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // The first rank's code, else the lowest failing rank's, whichever ended first (no slot at
  // all: none started); the order in which they were reaped is timing, not an answer.
  for (const int code : codes)
    if (code != 0) return code;
  return 0;
}

namespace {
// `path` as one word of a shell command: single-quoted (a quote in it as '\''), but for a leading
// "$HOME/", left for the shell to expand.
std::string shell_word(const std::string& path) {
  const std::string home = "$HOME/";
  const bool at_home = path.rfind(home, 0) == 0;
  std::string out = at_home ? "\"$HOME\"/'" : "'";
  for (char c : std::string_view(path).substr(at_home ? home.size() : 0)) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

LaunchCommands launch_commands(const std::string& config_file, int processes, const std::string& job_name,
                               const std::string& run_dir) {
  LaunchCommands c;
  const std::string train = fmt::format("mirrortrain train --config {}", shell_word(config_file));
  c.torchrun = fmt::format("torchrun --nproc_per_node {} --no_python --redirects 1 --tee 1 --log_dir torchrun-logs {}",
                           processes, train);
  c.sbatch = fmt::format(
      "#!/bin/bash\n"
      "#SBATCH --job-name={}\n"
      "#SBATCH --ntasks={}\n"
      "#SBATCH --cpus-per-task=2\n"
      "# One task per worker; spread them over nodes with --nodes and --ntasks-per-node.\n"
      "# The run is recorded by rank 0 in --run-dir: put it on a filesystem the window can see.\n"
      "srun {} --run-dir {}\n",
      path_slug(job_name, "mirrortrain"), processes, train, shell_word(run_dir));
  return c;
}

}  // namespace mirror
