// Tested by tests/core/strategy/test_mirrored_processes.cpp (rows against the whole table, 2 and 3
// processes, a batch that outgrows the slots) and, over Gloo between real processes, by
// tests/cli/test_workers.sh.
#include "sparse_rows.h"

#include <torch/torch.h>

#include <algorithm>
#include <stdexcept>

namespace mirror {

namespace {
// Row ids travel as float32: exact below 2^24. Larger tables are exchanged whole.
constexpr int64_t kMaxExactRows = int64_t{1} << 24;
// A length travels as two floats, each exact: length / 2^20 and length % 2^20.
constexpr int64_t kLengthUnit = int64_t{1} << 20;

using Ranges = std::vector<std::pair<int64_t, int64_t>>;  // offset, length; sorted, disjoint

// The parts of [0, n) outside `taken` (sorted, disjoint).
Ranges complement(const Ranges& taken, int64_t n) {
  Ranges out;
  int64_t at = 0;
  for (const auto& [o, len] : taken) {
    if (o > at) out.emplace_back(at, o - at);
    at = std::max(at, o + len);
  }
  if (at < n) out.emplace_back(at, n - at);
  return out;
}

Ranges merged(Ranges a, const Ranges& b) {
  a.insert(a.end(), b.begin(), b.end());
  std::sort(a.begin(), a.end());
  return a;
}

int64_t total(const Ranges& r) {
  int64_t n = 0;
  for (const auto& [o, len] : r) n += len;
  return n;
}

// Copies the ranges of `flat` one after the other into `staging` from 0, or back.
void gather(const torch::Tensor& flat, const Ranges& ranges, torch::Tensor& staging) {
  int64_t put = 0;
  for (const auto& [o, len] : ranges) {
    staging.narrow(0, put, len).copy_(flat.narrow(0, o, len));
    put += len;
  }
}
void scatter(const torch::Tensor& staging, const Ranges& ranges, torch::Tensor& flat) {
  int64_t put = 0;
  for (const auto& [o, len] : ranges) {
    flat.narrow(0, o, len).copy_(staging.narrow(0, put, len));
    put += len;
  }
}

void put_length(torch::Tensor& staging, int64_t at, int64_t length) {
  staging[at] = static_cast<float>(length / kLengthUnit);
  staging[at + 1] = static_cast<float>(length % kLengthUnit);
}

std::vector<int64_t> read_lengths(const torch::Tensor& staging, int64_t at, int processes) {
  std::vector<int64_t> lengths(processes);
  const float* l = staging.data_ptr<float>() + at;
  for (int p = 0; p < processes; ++p)
    lengths[p] = static_cast<int64_t>(l[2 * p]) * kLengthUnit + static_cast<int64_t>(l[2 * p + 1]);
  return lengths;
}
}  // namespace

SparseRowExchange::SparseRowExchange(std::vector<RowSegment> segments, std::vector<std::pair<int64_t, int64_t>> left_out)
    : segments_(std::move(segments)), left_out_(std::move(left_out)) {
  std::sort(left_out_.begin(), left_out_.end());
  for (const RowSegment& s : segments_) {
    sparse_n_ += s.rows * s.width;
    largest_table_ = std::max(largest_table_, s.rows);
    tables_.emplace_back(s.offset, s.rows * s.width);
  }
}

SparseRowExchange::Touched SparseRowExchange::touched_rows(const torch::Tensor& flat) const {
  // Plain loops: the table is scanned once and only its touched rows are copied, which on a fast
  // link is what the exchange costs beside the collective itself.
  Touched t;
  const float* data = flat.data_ptr<float>();
  for (const RowSegment& s : segments_) {
    auto& ids = t.ids.emplace_back();
    const float* row = data + s.offset;
    for (int64_t r = 0; r < s.rows; ++r, row += s.width)
      for (int64_t c = 0; c < s.width; ++c)
        if (row[c] != 0) {  // as torch's ne(0): -0 is untouched, NaN touched
          ids.push_back(r);
          break;
        }
    t.length += 1 + static_cast<int64_t>(ids.size()) * (1 + s.width);
  }
  return t;
}

void SparseRowExchange::write_message(const torch::Tensor& flat, const Touched& touched, float* out) const {
  const float* data = flat.data_ptr<float>();
  for (size_t i = 0; i < segments_.size(); ++i) {
    const RowSegment& s = segments_[i];
    const auto& ids = touched.ids[i];
    *out++ = static_cast<float>(ids.size());
    for (int64_t r : ids) *out++ = static_cast<float>(r);
    for (int64_t r : ids) {
      std::copy_n(data + s.offset + r * s.width, s.width, out);
      out += s.width;
    }
  }
}

void SparseRowExchange::add_rows(torch::Tensor& flat, const torch::Tensor& received,
                                 const std::vector<int64_t>& starts) const {
  // Every process sums the same rows in the same order: 0 + process 0's + process 1's + ...
  float* data = flat.data_ptr<float>();
  for (const RowSegment& s : segments_) std::fill_n(data + s.offset, s.rows * s.width, 0.0f);
  const float* all = received.data_ptr<float>();
  for (int64_t from : starts) {
    const float* in = all + from;
    for (const RowSegment& s : segments_) {
      const auto count = static_cast<int64_t>(*in++);
      const float* ids = in;
      const float* rows = in + count;
      for (int64_t i = 0; i < count; ++i) {
        float* row = data + s.offset + static_cast<int64_t>(ids[i]) * s.width;
        for (int64_t c = 0; c < s.width; ++c) row[c] += rows[i * s.width + c];
      }
      in = rows + count * s.width;
    }
  }
}

int64_t SparseRowExchange::exchange_densely(Communicator& cross, int process, int processes, torch::Tensor& flat,
                                            int64_t message_length, std::vector<int64_t>& lengths) {
  // Everything but what others sum (the buckets overlapped with backward).
  const Ranges mine = complement(left_out_, flat.numel());
  const int64_t n = total(mine);
  auto staging = torch::zeros({n + 2 * processes}, torch::kFloat32);
  gather(flat, mine, staging);
  put_length(staging, n + 2 * process, message_length);
  std::vector<torch::Tensor> one = {staging};
  cross.allreduce_sum(process, one)->wait();
  scatter(staging, mine, flat);
  lengths = read_lengths(staging, n, processes);
  return 4 * staging.numel();
}

int64_t SparseRowExchange::exchange(Communicator& cross, int process, int processes, torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  if (!flat.is_contiguous() || flat.scalar_type() != torch::kFloat32 || !flat.device().is_cpu())
    throw std::invalid_argument("the rows-only exchange takes contiguous float32 gradients on the CPU");
  const Touched touched = touched_rows(flat);
  const int64_t message_length = touched.length;
  std::vector<int64_t> lengths;
  int64_t bytes = 0;
  if (slot_ == 0 || processes * slot_ >= sparse_n_ || largest_table_ >= kMaxExactRows) {
    bytes = exchange_densely(cross, process, processes, flat, message_length, lengths);
  } else {
    // The dense rest, the lengths, then a slot per process holding its message.
    const Ranges dense = complement(merged(tables_, left_out_), flat.numel());
    const int64_t dense_n = total(dense);
    const int64_t lengths_at = dense_n, slots_at = dense_n + 2 * processes;
    auto staging = torch::zeros({slots_at + processes * slot_}, torch::kFloat32);
    gather(flat, dense, staging);
    put_length(staging, lengths_at + 2 * process, message_length);
    if (message_length <= slot_) write_message(flat, touched, staging.data_ptr<float>() + slots_at + process * slot_);
    std::vector<torch::Tensor> one = {staging};
    cross.allreduce_sum(process, one)->wait();
    bytes = 4 * staging.numel();
    scatter(staging, dense, flat);
    lengths = read_lengths(staging, lengths_at, processes);
    std::vector<int64_t> starts;
    if (*std::max_element(lengths.begin(), lengths.end()) <= slot_) {
      for (int p = 0; p < processes; ++p) starts.push_back(slots_at + p * slot_);
      add_rows(flat, staging, starts);
    } else {
      // A message did not fit: the messages cross again, side by side at their lengths.
      int64_t total = 0;
      for (int64_t l : lengths) {
        starts.push_back(total);
        total += l;
      }
      std::vector<torch::Tensor> side_by_side = {torch::zeros({total}, torch::kFloat32)};
      write_message(flat, touched, side_by_side.front().data_ptr<float>() + starts[static_cast<size_t>(process)]);
      cross.allreduce_sum(process, side_by_side)->wait();
      bytes += 4 * total;
      add_rows(flat, side_by_side.front(), starts);
    }
  }
  // Every process received the same lengths: the next step's slots, alike everywhere. They grow
  // at once and shrink by a sixteenth a step, so that a batch's touched rows, which vary from step
  // to step, seldom outgrow them.
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  slot_ = std::max(longest + longest / 4, slot_ - slot_ / 16);
  return bytes;
}

}  // namespace mirror
