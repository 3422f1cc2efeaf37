// Tested by tests/core/runs/test_simulated_link.cpp.
#include "simulated_link_communicator.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <utility>

#include "mirror/util/error.h"

namespace mirror {

SimulatedLinkCommunicator::SimulatedLinkCommunicator(std::unique_ptr<Communicator> inner, LinkSpec link,
                                                     int replicas)
    : inner_(std::move(inner)), link_(std::move(link)), replicas_(replicas) {
  if (!(link_.bandwidth_bytes_per_s > 0))
    throw ConfigError(fmt::format("simulated link {}: needs a bandwidth above 0", link_.name));
  if (replicas_ < 1) throw ConfigError(fmt::format("simulated link: {} replicas", replicas_));
  link_.simulated = true;
}

double SimulatedLinkCommunicator::modelled_seconds(double bytes) const {
  return ring_allreduce_seconds(link_, replicas_, bytes);
}

std::shared_ptr<Work> SimulatedLinkCommunicator::allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) {
  inner_->allreduce_sum(rank, tensors)->wait();
  double bytes = 0;
  for (const torch::Tensor& t : tensors) bytes += static_cast<double>(t.numel() * t.element_size());
  const double seconds = modelled_seconds(bytes);
  last_delay_ms_.store(seconds * 1e3);
  if (seconds <= 0) return completed_work();
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  // Sleep most of it (woken by abort), and spin the last fraction of a millisecond: a sleep
  // overshoots by tens of microseconds, which a fast modelled link would be buried under.
  constexpr auto kSpin = std::chrono::microseconds(200);
  {
    std::unique_lock lock(mutex_);
    wake_.wait_until(lock, deadline - kSpin, [&] { return aborted_; });
    if (aborted_) throw CollectiveAborted(reason_);
  }
  while (Clock::now() < deadline) std::this_thread::yield();
  return completed_work();
}

void SimulatedLinkCommunicator::abort(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (!aborted_) reason_ = reason;
    aborted_ = true;
  }
  wake_.notify_all();
  inner_->abort(reason);
}

void SimulatedLinkCommunicator::reset() {
  {
    std::lock_guard lock(mutex_);
    aborted_ = false;
    reason_.clear();
  }
  inner_->reset();
}

std::string SimulatedLinkCommunicator::name() const {
  return fmt::format("{} + simulated link ({})", inner_->name(), link_.spec_text());
}

}  // namespace mirror
