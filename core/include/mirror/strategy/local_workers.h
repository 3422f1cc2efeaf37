#pragma once
// Starting worker processes on this machine the way torchrun starts them (`mirrortrain train
// --nproc N` and the window's "Processes"), and the commands that start a run's workers elsewhere
// (torchrun, an sbatch script). No torch here.

#include <string>
#include <sys/types.h>
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

// Waits for `pid`; returns its exit code, or 128 + signal when a signal ended it.
int wait_for_worker(pid_t pid);

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
