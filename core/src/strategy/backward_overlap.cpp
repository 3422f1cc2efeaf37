// Tested by tests/core/strategy/test_mirrored_processes.cpp (overlapped against not, 2 and 3
// processes) and, over Gloo between real processes, by tests/cli/test_workers.sh.
#include "backward_overlap.h"

#include <algorithm>

namespace mirror {

BackwardOverlap::BackwardOverlap(std::vector<torch::Tensor> params, torch::Tensor flat_grads,
                                 const std::vector<bool>& keep, Communicator& cross, int process)
    : params_(std::move(params)), flat_(std::move(flat_grads)), cross_(cross), process_(process) {
  int64_t offset = 0;
  for (const auto& p : params_) {
    offsets_.push_back(offset);
    offset += p.numel();
  }
  // Backward finishes the last layers first: buckets from the last parameter down, each a
  // contiguous range of the flat gradients, closed at the size limit or at a parameter left out.
  Bucket open;
  auto close = [&] {
    if (open.params.empty()) return;
    buckets_.push_back(std::move(open));
    open = Bucket{};
  };
  for (size_t i = params_.size(); i-- > 0;) {
    if (!keep[i] || params_[i].numel() == 0) {
      close();
      continue;
    }
    open.params.push_back(i);
    open.offset = offsets_[i];
    open.length += params_[i].numel();
    if (4 * open.length >= kOverlapBucketBytes) close();
  }
  close();
  for (size_t b = 0; b < buckets_.size(); ++b) {
    Bucket& bucket = buckets_[b];
    bucket.flat = {flat_.narrow(0, bucket.offset, bucket.length)};
    floats_ += bucket.length;
    for (size_t i : bucket.params)
      hooks_.emplace_back(i, params_[i].register_hook([this, b, i](const torch::Tensor& grad) { arrived(b, i, grad); }));
  }
}

BackwardOverlap::~BackwardOverlap() {
  for (const auto& [param, handle] : hooks_) params_[param].remove_hook(handle);
}

std::vector<std::pair<int64_t, int64_t>> BackwardOverlap::ranges() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const Bucket& b : buckets_) out.emplace_back(b.offset, b.length);
  std::sort(out.begin(), out.end());
  return out;
}

void BackwardOverlap::begin_step() {
  // A bucket's gradients reach the flat buffer through the hooks only: autograd keeps its own
  // copy in .grad, which must not be the flat buffer that Gloo is summing meanwhile.
  for (const Bucket& b : buckets_)
    for (size_t i : b.params) params_[i].mutable_grad().reset();
  for (Bucket& b : buckets_) {
    b.arrived = 0;
    b.work.reset();
  }
  next_ = 0;
  first_start_ = last_end_ = Clock::time_point{};
  armed_ = true;
}

void BackwardOverlap::arrived(size_t bucket, size_t param, const torch::Tensor& grad) {
  if (!armed_) return;  // a backward outside a training step (none today) leaves the buckets alone
  torch::NoGradGuard no_grad;
  flat_.narrow(0, offsets_[param], params_[param].numel()).copy_(grad.reshape({-1}));
  ++buckets_[bucket].arrived;
  launch_ready();
}

void BackwardOverlap::launch(Bucket& b) {
  const auto now = Clock::now();
  if (first_start_ == Clock::time_point{}) first_start_ = now;
  b.work = cross_.allreduce_sum(process_, b.flat);
  if (b.work->is_completed()) b.finished = Clock::now();  // a backend that sums inside the call
}

void BackwardOverlap::launch_ready() {
  while (next_ < buckets_.size() &&
         buckets_[next_].arrived == static_cast<int>(buckets_[next_].params.size()))
    launch(buckets_[next_++]);
}

void BackwardOverlap::launch_rest() {
  armed_ = false;
  while (next_ < buckets_.size()) launch(buckets_[next_++]);
}

void BackwardOverlap::wait() {
  for (Bucket& b : buckets_) {
    if (!b.work) continue;
    b.work->wait();
    auto end = b.work->completed_at();
    if (end == Clock::time_point{}) end = b.finished != Clock::time_point{} ? b.finished : Clock::now();
    last_end_ = std::max(last_end_, end);
    b.work.reset();
  }
}

}  // namespace mirror
