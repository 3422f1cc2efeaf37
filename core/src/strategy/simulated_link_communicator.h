#pragma once
// The classroom what-if (`mirrortrain train --link`): a communicator that does the real
// all-reduce through another one, then holds every rank for the time the modelled link would
// have taken for the same bytes, so logical devices on one machine train as if they were joined
// by, say, 10 Gb Ethernet. The sum itself is the wrapped communicator's, bit for bit.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mirror/strategy/communicator.h"
#include "mirror/strategy/link_model.h"

namespace mirror {

class SimulatedLinkCommunicator : public Communicator {
 public:
  // `inner` does the reduction (owned). `replicas`: all replicas of the run over every process,
  // the n of the ring formula (the wrapped communicator may see only this process's ranks).
  // Throws ConfigError for a link without bandwidth or a replica count below 1.
  SimulatedLinkCommunicator(std::unique_ptr<Communicator> inner, LinkSpec link, int replicas);

  // The inner all-reduce, waited for, then a wait of modelled_seconds(bytes of `tensors`) on this
  // rank's thread. Returns completed work. Throws what the inner one throws, and
  // CollectiveAborted when abort() comes during the wait.
  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override;
  // Aborts the inner communicator and wakes ranks in the simulated wait. Thread-safe.
  void abort(const std::string& reason) override;
  void reset() override;
  int world_size() const override { return inner_->world_size(); }
  std::string name() const override;

  // The ring all-reduce time of `bytes` over the link for the run's replicas, seconds.
  double modelled_seconds(double bytes) const;
  const LinkSpec& link() const { return link_; }
  // The delay added to the latest all-reduce, milliseconds (0 before the first). Thread-safe.
  double last_delay_ms() const { return last_delay_ms_.load(); }

 private:
  std::unique_ptr<Communicator> inner_;
  LinkSpec link_;
  int replicas_;
  std::atomic<double> last_delay_ms_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool aborted_ = false;  // guarded by mutex_
  std::string reason_;    // guarded by mutex_
};

}  // namespace mirror
