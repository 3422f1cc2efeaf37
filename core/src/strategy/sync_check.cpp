// The sync check: every replica's parameters bit-identical to replica 0's, in this process and
// across processes.
// Tested by tests/core/strategy/test_mirrored.cpp and tests/core/strategy/test_mirrored_processes.cpp.
#include <fmt/format.h>

#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "replica.h"

namespace mirror {

namespace {
// 64-bit FNV-1a of the tensor's bytes.
uint64_t fnv1a_checksum(const torch::Tensor& flat) {
  auto cpu = flat.device().is_cpu() ? flat.contiguous() : flat.to(torch::kCPU);
  const auto* p = static_cast<const unsigned char*>(cpu.data_ptr());
  const size_t n = static_cast<size_t>(cpu.numel()) * cpu.element_size();
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
}  // namespace

std::vector<uint64_t> MirroredStrategy::check_sync() {
  // Every replica's checksum first, so that a failed check reports them all (SyncError carries
  // them: the view shows the failing check, with the replica that differs).
  std::vector<uint64_t> checksums;
  for (int r = 0; r < num_replicas(); ++r) checksums.push_back(fnv1a_checksum(replicas_[static_cast<size_t>(r)]->flat_params));
  const uint64_t reference = checksums.front();
  std::vector<int> differing;
  for (int r = 1; r < num_replicas(); ++r)
    if (checksums[static_cast<size_t>(r)] != reference) differing.push_back(r);
  if (!differing.empty()) {
    const int r = differing.front();
    const auto& p = replicas_[static_cast<size_t>(r)]->flat_params;
    torch::NoGradGuard no_grad;
    auto diff = (p.to(torch::kCPU) - replicas_[0]->flat_params.to(torch::kCPU)).abs();
    const int64_t count = diff.ne(0).sum().item<int64_t>();
    std::string others;
    for (size_t i = 1; i < differing.size(); ++i)
      others += fmt::format("{}{}", i == 1 ? "" : i + 1 == differing.size() ? " and " : ", ", first_replica_ + differing[i]);
    if (!others.empty()) others = fmt::format(" (replica{} {} differ{} too)", differing.size() > 2 ? "s" : "", others,
                                              differing.size() > 2 ? "" : "s");
    // Across processes the others' replicas are not known here: they carry our reference.
    std::vector<uint64_t> everyone;
    for (int q = 0; q < processes_; ++q) {
      if (q == process_) everyone.insert(everyone.end(), checksums.begin(), checksums.end());
      else everyone.insert(everyone.end(), static_cast<size_t>(num_replicas()), reference);
    }
    throw SyncError(fmt::format(
        "replicas out of sync after step {}: replica {} differs from replica {} in {} of {} parameters "
        "(max |difference| {:.3g}){}. Mirrored replicas must stay bit-identical; this is a bug or memory "
        "corruption, so the run stops rather than train on inconsistent copies",
        steps_, first_replica_ + r, first_replica_, count, p.numel(), diff.max().item<double>(), others),
        steps_, std::move(everyone));
  }
  if (processes_ <= 1) return checksums;
  // Across processes: every process's replicas against process 0's, by checksum.
  const auto all = workers_->allgather({static_cast<double>(reference >> 32), static_cast<double>(reference & 0xffffffffu)});
  std::vector<uint64_t> everyone;
  for (int p = 0; p < processes_; ++p) {
    const auto& v = all[static_cast<size_t>(p)];
    if (p == process_) everyone.insert(everyone.end(), checksums.begin(), checksums.end());
    else everyone.insert(everyone.end(), static_cast<size_t>(num_replicas()), (static_cast<uint64_t>(v[0]) << 32) | static_cast<uint64_t>(v[1]));
  }
  for (int p = 1; p < processes_; ++p)
    if (all[static_cast<size_t>(p)] != all[0])
      throw SyncError(fmt::format(
          "replicas out of sync after step {}: the replicas of process {} (on {}) differ from those of process 0. "
          "Mirrored replicas must stay bit-identical; this is a bug or memory corruption, so the run stops rather "
          "than train on inconsistent copies",
          steps_, p, workers_->hosts().at(static_cast<size_t>(p))),
          steps_, everyone);
  return everyone;
}

}  // namespace mirror
