#include "mirror/strategy/hierarchical_communicator.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include "mirror/util/error.h"
#include "sparse_rows.h"

namespace mirror {

HierarchicalCommunicator::HierarchicalCommunicator(std::unique_ptr<Communicator> local,
                                                   std::shared_ptr<Communicator> cross, int process_rank)
    : local_(std::move(local)), cross_(std::move(cross)), process_rank_(process_rank), barrier_(local_->world_size()) {
  if (process_rank_ < 0 || process_rank_ >= cross_->world_size())
    throw std::invalid_argument(fmt::format("hierarchical communicator: process rank {} outside [0, {})",
                                            process_rank_, cross_->world_size()));
}

HierarchicalCommunicator::~HierarchicalCommunicator() = default;

void HierarchicalCommunicator::exchange_rows_sparsely(std::vector<RowSegment> segments) {
  rows_ = std::move(segments);
  rebuild_exchange();
}

void HierarchicalCommunicator::leave_out(std::vector<std::pair<int64_t, int64_t>> ranges) {
  left_out_ = std::move(ranges);
  rebuild_exchange();
}

void HierarchicalCommunicator::rebuild_exchange() {
  if (rows_.empty() && left_out_.empty())
    sparse_.reset();
  else
    sparse_ = std::make_unique<SparseRowExchange>(rows_, left_out_);
}

std::shared_ptr<Work> HierarchicalCommunicator::allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) {
  local_->allreduce_sum(rank, tensors)->wait();  // every local rank now holds the process's sum
  if (rank == 0) {
    try {
      exchange_begin_ = std::chrono::steady_clock::now();
      if (sparse_ && tensors.size() == 1) {  // the segments and ranges are places in one flat tensor
        exchange_bytes_ = sparse_->exchange(*cross_, process_rank_, cross_->world_size(), tensors.front());
      } else {
        cross_->allreduce_sum(process_rank_, tensors)->wait();
        exchange_bytes_ = 0;
        for (const auto& t : tensors) exchange_bytes_ += static_cast<int64_t>(t.numel() * t.element_size());
      }
      exchange_end_ = std::chrono::steady_clock::now();
    } catch (const std::exception& e) {
      barrier_.abort(fmt::format("the cross-process all-reduce failed: {}", e.what()));
      throw;
    }
    root_ = &tensors;
  }
  barrier_.arrive_and_wait();
  if (rank != 0)
    for (size_t i = 0; i < tensors.size(); ++i) tensors[i].copy_((*root_)[i]);
  barrier_.arrive_and_wait();  // rank 0's tensors stay untouched until everyone has copied them
  return completed_work();
}

void HierarchicalCommunicator::abort(const std::string& reason) {
  barrier_.abort(reason);
  local_->abort(reason);
  cross_->abort(reason);
}

void HierarchicalCommunicator::reset() {
  barrier_.reset();
  local_->reset();
  cross_->reset();
}

std::string HierarchicalCommunicator::name() const { return local_->name() + "+" + cross_->name(); }

}  // namespace mirror
