// The cross-process side of a step: the record that travels with the gradients (training) and
// the allgather of sums and predictions (evaluation).
// Tested by tests/core/strategy/test_mirrored_processes.cpp.
#include "step_record.h"

#include <algorithm>
#include <cmath>

#include "mirror/strategy/mirrored.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/strategy/workers.h"
#include "replica.h"

namespace mirror {

namespace {
// Writes `values` into the float32 `record` from `at` on (the record may live on a GPU).
void put_in_record(const torch::Tensor& record, int64_t at, const std::vector<float>& values) {
  if (record.is_cpu()) {
    std::copy(values.begin(), values.end(), record.data_ptr<float>() + at);
    return;
  }
  record.narrow(0, at, static_cast<int64_t>(values.size())).copy_(torch::tensor(values));
}
}  // namespace

void start_step_record(Replica& rep, int replica, int replicas, bool stop, const ProcessSpans* process) {
  rep.reduce_list[0].zero_();  // the gradients, and the record after them
  if (!rep.record.defined()) return;
  const ReplicaMarks& m = rep.marks;
  std::vector<float> values = {static_cast<float>(m.started),         static_cast<float>(m.copied),
                               static_cast<float>(m.forward_done),    static_cast<float>(m.gradients_ready),
                               static_cast<float>(m.reduced),         static_cast<float>(m.updated),
                               static_cast<float>(rep.last_train_timing.memory_mib)};
  if (process)
    values.insert(values.end(), {static_cast<float>(process->exchange_begin), static_cast<float>(process->exchange_end),
                                 static_cast<float>(process->step_end), static_cast<float>(process->overlap_begin),
                                 static_cast<float>(process->overlap_end)});
  put_in_record(rep.record, StepRecord::slot(replica) + StepRecord::kMarks, values);
  if (stop) put_in_record(rep.record, StepRecord::stop(replicas), {1.0f});
}

void add_metrics_to_record(Replica& rep, int replica) {
  if (rep.record.defined() && rep.metrics.defined())
    rep.record.narrow(0, StepRecord::slot(replica) + StepRecord::kMetrics, 3).copy_(rep.metrics);
}

void MirroredStrategy::read_record(StepResult& total, const ShardPlan& plan) {
  // Every replica holds the same record after the all-reduce.
  const auto record = replicas_[0]->record.to(torch::kCPU);
  const float* v = record.data_ptr<float>();
  const int all = total_replicas();
  const int n = num_replicas();
  total.sums = MetricSums{};
  total.replicas.clear();
  // The previous step on this process's clock: each process's spans as its first replica sent
  // them, moved by the difference of the moments this process and that one left the exchange
  // (everyone leaves it together).
  StepTimeline& t = total.timeline;
  t = StepTimeline{};
  if (has_previous_step_) {
    t.global_step = steps_;  // this step is steps_ + 1
    for (int p = 0; p < processes_; ++p) {
      if (p == process_) {
        t.processes.push_back(previous_process_);
        continue;
      }
      const float* s = v + StepRecord::slot(p * n) + StepRecord::kProcess;
      ProcessSpans spans{p, 0, s[0], s[1], s[2], s[3], s[4]};
      spans.offset_ms = previous_process_.exchange_end - spans.exchange_end;
      for (double* x : {&spans.exchange_begin, &spans.exchange_end, &spans.step_end}) *x += spans.offset_ms;
      if (spans.overlap_end > 0)
        for (double* x : {&spans.overlap_begin, &spans.overlap_end}) *x += spans.offset_ms;
      t.processes.push_back(spans);
    }
  }
  for (int g = 0; g < all; ++g) {
    const float* slot = v + StepRecord::slot(g);
    const float* metrics = slot + StepRecord::kMetrics;
    total.sums.add(MetricSums{plan.size(g), metrics[0], static_cast<int64_t>(metrics[1]), static_cast<int64_t>(metrics[2])});
    const int local = g - first_replica_;
    if (local >= 0 && local < n) {
      const Replica& rep = *replicas_[static_cast<size_t>(local)];
      total.replicas.push_back(rep.timing);
      if (has_previous_step_) t.replicas.push_back(rep.previous_marks);
      continue;
    }
    const float* m = slot + StepRecord::kMarks;
    const int p = g / n;
    const double offset = has_previous_step_ ? t.processes[static_cast<size_t>(p)].offset_ms : 0.0;
    ReplicaMarks marks{g, p, 0, m[0], m[1], m[2], m[3], m[4], m[5]};
    // To the microsecond: float32 carries about seven digits, the rest would be noise.
    auto ms = [](double x) { return std::round(x * 1000.0) / 1000.0; };
    total.replicas.push_back(ReplicaTiming{g, plan.size(g), ms(marks.compute_ms()), ms(marks.allreduce_ms()),
                                           ms(marks.update_ms()), ms(slot[StepRecord::kMemory])});
    if (!has_previous_step_) continue;
    marks.shard_size = ShardPlan(previous_global_, all).size(g);
    for (double* x : {&marks.started, &marks.copied, &marks.forward_done, &marks.gradients_ready, &marks.reduced,
                      &marks.updated})
      *x += offset;
    t.replicas.push_back(marks);
  }
  total.stop_asked = v[StepRecord::stop(all)] > 0;
}

void MirroredStrategy::gather_evaluation(StepResult& total) {
  constexpr size_t kHeader = 6;  // the sums, then k and the examples of the predictions that follow
  const int64_t examples = total.top.examples();
  std::vector<double> mine = {static_cast<double>(total.sums.samples), total.sums.loss_sum,
                              static_cast<double>(total.sums.correct), static_cast<double>(total.sums.top_k_correct),
                              static_cast<double>(total.top.k), static_cast<double>(examples)};
  // This process's examples' top predictions, pairs of (class, probability). The processes'
  // shares of a batch differ by up to one example per replica, and an allgather takes one
  // length from all: every process pads to the largest share.
  double largest = 0;
  for (const auto& n : workers_->allgather({static_cast<double>(examples)})) largest = std::max(largest, n[0]);
  for (size_t i = 0; i < total.top.classes.size(); ++i)
    mine.insert(mine.end(), {static_cast<double>(total.top.classes[i]), static_cast<double>(total.top.probabilities[i])});
  mine.resize(kHeader + 2 * static_cast<size_t>(kTopPredictions) * static_cast<size_t>(largest), 0.0);
  StepResult all;
  for (const auto& v : workers_->allgather(mine)) {
    all.sums.add(MetricSums{static_cast<int64_t>(v[0]), v[1], static_cast<int64_t>(v[2]), static_cast<int64_t>(v[3])});
    TopPredictions theirs;
    theirs.k = static_cast<int>(v[4]);
    const auto values = static_cast<size_t>(v[5]) * static_cast<size_t>(std::max(0, theirs.k));
    for (size_t at = kHeader; at + 2 <= v.size() && at < kHeader + 2 * values; at += 2) {
      theirs.classes.push_back(static_cast<int32_t>(v[at]));
      theirs.probabilities.push_back(static_cast<float>(v[at + 1]));
    }
    if (theirs.k > 0) append_top(all.top, theirs);
  }
  total.sums = all.sums;
  total.top = std::move(all.top);
}

}  // namespace mirror
