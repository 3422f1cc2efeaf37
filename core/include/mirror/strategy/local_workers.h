#pragma once
// Starting worker processes on this machine the way torchrun starts them (`mirrortrain train
// --nproc N` and the window's "Processes"), and the commands that start a run's workers elsewhere
// (torchrun, an sbatch script). No torch here.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "mirror/strategy/workers.h"

namespace mirror {

// Where the workers of one local run meet: a folder made fresh for it (mode 0700, under
// $XDG_RUNTIME_DIR, else the temp dir) that holds c10d's FileStore. Nothing listens on the
// network, only this user's processes can open it, and no two runs, nor a run and the leftovers
// of a killed one, ever share one. Destroying it removes the folder and its contents: keep it
// until every worker that uses it has exited (one killed with SIGKILL leaves it behind). Not
// thread-safe, and it need not be: one owner makes it, hands dir() to the workers, destroys it.
class LocalRendezvous {
 public:
  LocalRendezvous();  // throws RunError naming the folder it could not make
  ~LocalRendezvous();
  LocalRendezvous(const LocalRendezvous&) = delete;
  LocalRendezvous& operator=(const LocalRendezvous&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// Worker `rank` of `world` on this machine meeting in `where` (MASTER_ADDR 127.0.0.1, no port),
// as torchrun would describe it otherwise.
WorkerEnv local_worker_env(int rank, int world, const LocalRendezvous& where, const std::string& launcher);

// Starts `argv` (argv[0] is the program's path) as a child process whose environment has `env`'s
// variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT unless it is
// 0, MIRROR_STORE_DIR, MIRROR_LAUNCHER) added. Returns its pid. Throws RunError when it cannot be
// started.
pid_t spawn_worker(const std::vector<std::string>& argv, const WorkerEnv& env);

// A process ended by a signal exits as shells report it: 128 + the signal's number.
constexpr int exit_code_for_signal(int sig) { return 128 + sig; }

// Waits for `pid`; returns its exit code, or exit_code_for_signal when a signal ended it.
int wait_for_worker(pid_t pid);

// The worker processes of one run on this machine, ranks [first_rank, world): started together,
// signalled together, reaped together. The CLI's `train --nproc N` starts every rank; the window,
// itself worker 0, starts ranks 1 and up. A process started here and never reaped stays a zombie
// until this process ends: call wait() (a thread of its own may).
class LocalWorkers {
 public:
  // Room for the ranks' processes; starts none. Throws std::invalid_argument unless
  // 0 <= first_rank <= world.
  LocalWorkers(int first_rank, int world);
  LocalWorkers(const LocalWorkers&) = delete;
  LocalWorkers& operator=(const LocalWorkers&) = delete;

  // Starts each rank in order as `argv` (argv[0] the program's path) with the environment
  // local_worker_env(rank, world, where, launcher) describes. When one cannot be started, those
  // already started are sent SIGTERM and reaped, so that none is left waiting for a peer that
  // never comes, and the RunError is thrown. Call once, from one thread.
  void start(const std::vector<std::string>& argv, const LocalRendezvous& where, const std::string& launcher);
  // Sends `sig` to every process started and not yet reaped. Async-signal-safe (it only calls
  // kill(2) on atomically read pids): a signal handler may call it, while start() or wait() run.
  void signal(int sig) const noexcept;
  // Waits for every process started and reaps it. Once one has failed (exited non-zero or by a
  // signal), those left get kWorkerGrace to end on their own, then SIGTERM (and SIGCONT, for one
  // stopped), then SIGKILL after another kWorkerGrace: a stopped or hung worker never holds the
  // launcher. Returns the first rank's exit code (as wait_for_worker gives it) unless that is 0,
  // else the first failing rank's; 0 when all exited with 0 or none was started. Call from one
  // thread at a time.
  int wait();
  static constexpr std::chrono::seconds kWorkerGrace{5};

 private:
  int first_rank_;
  int world_;
  // One slot per rank from first_rank_: 0 not started, > 0 running (or ended, not yet reaped),
  // -1 reaped. Atomic, because signal() reads them from a signal handler or another thread.
  std::unique_ptr<std::atomic<pid_t>[]> pids_;
};

// Ready-to-run commands for a config saved as `config_file`: `processes` workers with the
// config's own devices each. The paths are quoted for the shell (a leading "$HOME/" is left to
// expand) and the job name is made a slug, whatever text they hold.
struct LaunchCommands {
  std::string torchrun;  // one line, for one machine (add --nnodes/--node_rank/--master_addr for more)
  std::string sbatch;    // a Slurm batch script: one task per worker, srun in it
};
LaunchCommands launch_commands(const std::string& config_file, int processes, const std::string& job_name,
                               const std::string& run_dir);

}  // namespace mirror
