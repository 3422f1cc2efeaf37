#pragma once
// Several worker processes training one mirrored run: where this process stands among them (read
// from torchrun's or Slurm's environment), and the group they form over c10d (a store for the
// rendezvous; ProcessGroupGloo for the collectives, ProcessGroupNCCL for GPU replicas where
// built). W processes x M replica threads each reduce inside the process first, then across
// processes (HierarchicalCommunicator). No torch here.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mirror {

class Communicator;

// This process's place among the workers.
struct WorkerEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string launcher;  // "torchrun", "slurm" or "mirrortrain --nproc": for messages and run.json
  // torchrun's agent already serves a store at MASTER_ADDR:MASTER_PORT (TORCHELASTIC_USE_AGENT_STORE):
  // rank 0 then joins it as a client instead of serving one. `attempt` keeps restarts apart.
  bool launcher_serves_store = false;
  int attempt = 0;
  // Local runs (`mirrortrain train --nproc`, the window): the private folder (MIRROR_STORE_DIR)
  // where the workers meet through c10d's FileStore; nothing listens on the network and
  // master_port is 0. Empty: they meet at rank 0's TCPStore on MASTER_ADDR:MASTER_PORT.
  std::string store_dir;
};

// Where the workers meet, for messages and run.json: "MASTER_ADDR:MASTER_PORT", or "a private
// folder on this machine" for a local run.
std::string meeting_place(const WorkerEnv& env);

using EnvLookup = std::function<const char*(const char* name)>;

// Reads torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT), else Slurm's (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE,
// SLURM_STEP_NODELIST; the first host is the master, the port MASTER_PORT or 20000 + job id
// modulo 10000). nullopt when neither launcher started this process, or Slurm started one task.
// With MIRROR_STORE_DIR (set by local_workers' spawn_worker) the workers meet in that folder and
// MASTER_PORT is not read. Throws ConfigError naming the variable when one is missing or not a number.
std::optional<WorkerEnv> worker_env_from(const EnvLookup& lookup);
std::optional<WorkerEnv> worker_env();  // from this process's environment

// The first host of a Slurm node list: "node[07-09,12],gpu3" -> "node07".
std::string first_slurm_host(const std::string& nodelist);

// The processes of one run, joined over c10d. Made once per process, shared by the trainer and
// the strategy. Collectives are called from one thread at a time (the trainer's, or replica 0's
// during a step, never both at once).
class WorkerGroup {
 public:
  // Meets the other workers (in env.store_dir, else at MASTER_ADDR:MASTER_PORT where rank 0 serves
  // the store) and builds the Gloo process group. Throws RunError within `timeout` when a worker
  // does not come, the master cannot be reached, what answers there is not a c10d store, or the
  // port is taken, saying which and what to do. ConfigError when this build has no c10d.
  // `start_timeout` bounds the start-up alone when given (collectives then use `timeout`).
  static std::shared_ptr<WorkerGroup> connect(const WorkerEnv& env, std::chrono::milliseconds timeout,
                                              std::chrono::milliseconds start_timeout = std::chrono::milliseconds(0));
  virtual ~WorkerGroup() = default;

  virtual const WorkerEnv& env() const = 0;
  int rank() const { return env().rank; }
  int world_size() const { return env().world_size; }
  // Each rank's host name, by rank.
  virtual const std::vector<std::string>& hosts() const = 0;
  // Sums float32 gradients across processes (rank = this process's rank) with Gloo; CUDA tensors
  // go through the host.
  virtual std::shared_ptr<Communicator> communicator() = 0;
  // The communicator for replicas whose first one is on CUDA device `gpu` (-1: the CPU): c10d's
  // NCCL where choose_cross_process says so, else communicator(). A collective: every rank calls it
  // once, at the same point. `why` (when given) receives the choice's reason.
  virtual std::shared_ptr<Communicator> communicator_for(int gpu, std::string* why) {
    (void)gpu;
    if (why) *why = "c10d's Gloo";
    return communicator();
  }
  // Every rank's `mine` (all of one length), by rank.
  virtual std::vector<std::vector<double>> allgather(const std::vector<double>& mine) = 0;
  // Throws ConfigError unless every rank gives the same text for `what`: rank 0's text is the
  // reference, and the message names the first line where this rank's differs.
  virtual void check_same(const std::string& what, const std::string& mine) = 0;
  // Holds every rank until all have arrived.
  virtual void barrier() = 0;
};

// Whether this build can train across processes (c10d with Gloo was found at configure time).
bool c10d_available();
// Whether it can sum GPU replicas across processes over c10d's NCCL (a CUDA LibTorch with NCCL).
bool c10d_nccl_built();

// Which c10d backend sums across processes. NCCL when this build has it and every rank's first
// replica is on a GPU (`gpus`: each rank's CUDA device, -1 for the CPU) that no other rank on its
// host (`hosts`, by rank) uses: NCCL refuses two ranks on one GPU. Else Gloo, and `reason` says
// why not NCCL where the replicas are on GPUs.
struct CrossProcessChoice {
  bool nccl = false;
  std::string reason;  // "c10d's NCCL", "c10d's Gloo", "c10d's Gloo (ranks 0 and 1 share cuda:0 on hostA; ...)"
};
CrossProcessChoice choose_cross_process(const std::vector<int>& gpus, const std::vector<std::string>& hosts,
                                        bool nccl_built);

// Whether a rank 0 that serves the TCPStore (Slurm, started by hand) listens on MASTER_ADDR's
// address alone (PyTorch 2.x) rather than on every interface (LibTorch 1.13 cannot choose). False
// without c10d.
bool store_binds_master_addr();

}  // namespace mirror
