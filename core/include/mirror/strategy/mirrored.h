#pragma once
// The mirrored synchronous data-parallel step (TensorFlow MirroredStrategy semantics):
// replicate the model, shard the global batch, per-replica forward/backward, all-reduce the
// gradients, identical update on every replica's own copy.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/model/shape.h"
#include "mirror/optim/optimizer.h"
#include "mirror/strategy/communicator.h"
#include "mirror/strategy/device.h"
#include "mirror/strategy/mirrored_options.h"
#include "mirror/strategy/step_result.h"

namespace mirror {

// The replicas' training state as plain tensors: what a checkpoint holds. All replicas share
// parameters and optimizer slots (they are mirrored); dropout streams are per replica.
struct StrategyState {
  torch::Tensor params;  // flat, float32, CPU
  std::vector<std::pair<std::string, torch::Tensor>> optimizer_slots;
  int64_t optimizer_iterations = 0;
  std::vector<torch::Tensor> dropout_rng;  // one generator state per replica
  int64_t steps = 0;
};

class BackwardOverlap;
class GraphStep;
class HierarchicalCommunicator;
class ReplicaPool;
class ShardPlan;
class WorkerGroup;
struct Replica;

class MirroredStrategy {
 public:
  // Builds one model copy per device (weights initialised from `seed` on replica 0 and copied to
  // the others), one optimizer per replica, the communicator, and one long-lived thread per
  // replica. Throws ConfigError when the model does not fit or the options are invalid.
  // With `workers` of W > 1 processes, this process holds replicas [rank * M, rank * M + M) of
  // W * M: it trains on those shards of each global batch, reduces inside the process and then
  // across processes, and step results, sync checks and states cover all W * M replicas. Every
  // process must then call train_step, evaluate, check_sync and state together.
  MirroredStrategy(std::vector<LogicalDevice> devices, const ModelAnalysis& model,
                   const OptimizerConfig& optimizer, const MirroredOptions& options, uint64_t seed,
                   std::shared_ptr<WorkerGroup> workers = nullptr);
  // Joins the replica threads.
  ~MirroredStrategy();
  MirroredStrategy(const MirroredStrategy&) = delete;
  MirroredStrategy& operator=(const MirroredStrategy&) = delete;

  // One synchronous training step on a global batch. Every K steps (options.sync_check_every)
  // also checks that replicas agree. Throws RunError when a replica fails, SyncError when the
  // replicas diverge. Not thread-safe: call from one (trainer) thread.
  // `stop_asked`: this process has been asked to stop. With several processes it travels with
  // the step's gradients, and the result's stop_asked says whether any process was asked, so
  // that all of them stop after the same step. In one process it is handed back as given.
  StepResult train_step(const Batch& batch, bool stop_asked = false);
  // Forward pass only (inference mode, dropout off), sharded across replicas. The result's `top`
  // holds every example's five most probable classes (fewer when there are fewer classes), in
  // batch order, over all processes.
  StepResult evaluate(const Batch& batch);
  // The class probabilities (N x classes, float32, CPU) that replica 0 gives the inputs `x`, in
  // inference mode. Local to this process; call between steps.
  torch::Tensor predict(const torch::Tensor& x);
  // Throws SyncError naming the step, the replica and the size of the difference unless every
  // replica's parameters are bit-identical to replica 0's; the error carries every replica's
  // checksum (SyncError::checksums). Returns each replica's parameter checksum (all
  // processes' replicas, in order; another process's replicas carry the checksum its own check
  // agreed on).
  std::vector<uint64_t> check_sync();

  int num_replicas() const;  // in this process
  int total_replicas() const { return num_replicas() * processes_; }
  int processes() const { return processes_; }
  int process_rank() const { return process_; }  // this process among them
  const std::vector<LogicalDevice>& devices() const { return devices_; }
  const CommunicatorChoice& communicator() const { return choice_; }
  // Whether training steps run as one CUDA graph (options.cuda_graphs, strategy/cuda_graphs.h),
  // in one line: "the step is one CUDA graph, ...", "eager: <why>", "off (...)"; empty for CPU
  // replicas in mode auto. A capture that fails in mode auto switches to eager and says so here.
  const std::string& cuda_graphs_status() const { return graph_status_; }
  bool cuda_graphs_active() const { return graph_ != nullptr; }
  int intra_op_threads() const { return threads_per_replica_; }
  // Why that many, in words ("16 examples a replica: one thread per 128, ...").
  const std::string& intra_op_threads_reason() const { return threads_reason_; }
  int64_t num_parameters() const;
  int64_t steps() const { return steps_; }
  // Replica `r`'s parameters as one flat float32 tensor that aliases the model's weights:
  // writing to it changes that replica (checkpoints and tests use this).
  torch::Tensor replica_parameters(int replica);
  // A copy of the training state (replica 0's parameters and slots, every replica's dropout
  // stream, of every process). Call between steps.
  StrategyState state() const;
  // Puts a saved state on every replica. Throws DataError when it does not fit this model
  // (parameter count, optimizer kind, replica count for the dropout streams).
  void restore(const StrategyState& state);
  // Sets the rate every replica's next update uses (schedules call this between steps).
  void set_learning_rate(double rate);
  double learning_rate() const;
  // Puts `params` (flat, as replica_parameters) on every replica: early stopping's best weights.
  void load_parameters(const torch::Tensor& params);
  // L2 norm of all parameters of replica 0, computed in double precision.
  double parameter_l2_norm() const;

 private:
  void run_replicas(const std::function<void(int)>& job);
  // Several processes of CPU replicas: which gradients cross as rows (sparse_exchange) and which
  // during backward (backward_overlap).
  void plan_cross_process_exchange(const ModelAnalysis& model);
  // Decides whether training steps are captured (options_.cuda_graphs) and builds the graph step.
  void start_cuda_graphs();
  // One step over the replicas: training (forward, backward, all-reduce, update) or evaluation
  // (forward only).
  StepResult run_step(const Batch& batch, bool train);
  // Replica `r`'s part of a step, on its own thread and stream.
  void replica_step(Replica& rep, const Batch& batch, const ShardPlan& plan, int r, bool train, double inv_global,
                    int top_k);
  // Several processes, training: the step's sums, every replica's timing, the stop and the
  // previous step's timeline from the record that travelled with the gradients (see StepRecord
  // in strategy/step_record.h).
  void read_record(StepResult& total, const ShardPlan& plan);
  // The step as a CUDA graph (graph_step.h); false when it failed and the eager step must run.
  bool run_graph_step(const Batch& batch, const ShardPlan& plan, double inv_global);
  // Marks a step timeline as run over --link's simulated link, with the modelled all-reduce time.
  void mark_simulated_link(StepTimeline& timeline) const;
  // Several processes, evaluation: adds the other processes' sums and top predictions to ours.
  void gather_evaluation(StepResult& total);

  std::vector<LogicalDevice> devices_;
  MirroredOptions options_;
  OptimizerConfig optimizer_;
  std::vector<int64_t> segments_;  // each weight's size in the flat vectors, for per-weight clipping
  CommunicatorChoice choice_;
  int threads_per_replica_ = 1;
  std::string threads_reason_;
  int top_k_ = 1;
  int64_t steps_ = 0;
  std::shared_ptr<WorkerGroup> workers_;  // null or one process: everything is in this process
  int processes_ = 1;
  int process_ = 0;
  int first_replica_ = 0;  // this process's first replica among all processes' replicas
  bool stop_asked_ = false;  // of the step in progress
  std::unique_ptr<Communicator> communicator_;
  HierarchicalCommunicator* hierarchical_ = nullptr;  // communicator_ when several processes: their exchange
  // The step's clock: when this process began the step in progress (its replicas' marks count from it).
  std::chrono::steady_clock::time_point step_start_{};
  // Several processes: the previous training step of this session, whose timeline the next step
  // reports (the other processes' marks travel with the next step's gradients).
  bool has_previous_step_ = false;
  ProcessSpans previous_process_;  // this process's spans then
  int64_t previous_global_ = 0;    // its global batch
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::unique_ptr<BackwardOverlap> overlap_;  // null: everything crosses after backward
  std::unique_ptr<GraphStep> graph_;  // null: eager steps
  std::string graph_status_;
  std::unique_ptr<ReplicaPool> pool_;  // last: its threads use the replicas
};

}  // namespace mirror
