// libFuzzer target: a recorded run folder as the runs browser and `mirrortrain runs` read it.
// The input is run.json, a NUL, meta.json, a NUL, metrics.jsonl, then optionally a NUL and
// evaluations.jsonl, and a NUL and timeline.jsonl (NUL never occurs in JSON text, so seeds are
// real files joined). read_run may
// throw DataError for a run.json that is no run; read_evaluations throws nothing; anything else
// escaping, a crash, a leak, a hang or a record that contradicts itself is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "scratch_file.h"

namespace {
// The next part of `bytes` up to a NUL (or the end).
std::string part(const std::string& bytes, size_t& at) {
  const size_t end = std::min(bytes.find('\0', at), bytes.size());
  std::string out = bytes.substr(at, end - at);
  at = end < bytes.size() ? end + 1 : end;
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& scratch = mirror::fuzz::scratch();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  size_t at = 0;
  const std::string run_json = part(bytes, at), meta_json = part(bytes, at), metrics = part(bytes, at);
  const std::string evaluations = part(bytes, at), timeline = bytes.substr(at);
  scratch.put("run.json", run_json);
  if (meta_json.empty()) scratch.remove("meta.json"); else scratch.put("meta.json", meta_json);
  scratch.put("metrics.jsonl", metrics);
  scratch.put(mirror::kEvaluationsFile, evaluations);
  if (timeline.empty()) scratch.remove(mirror::kTimelineFile); else scratch.put(mirror::kTimelineFile, timeline);
  // What the Learned tab asks of each evaluation: a matrix as large as its classes say, with a
  // diagonal no larger than its total, and examples that each fall in a cell.
  std::vector<std::string> warnings;
  int last_epoch = 0;
  for (const mirror::Evaluation& e : mirror::read_evaluations(scratch.dir(), &warnings)) {
    if (e.epoch <= last_epoch) __builtin_trap();  // one per epoch, in order
    last_epoch = e.epoch;
    if (e.confusion.size() != static_cast<size_t>(e.classes * e.classes)) __builtin_trap();
    if (e.correct() > e.total()) __builtin_trap();
    for (const auto& pair : e.most_confused(3)) (void)e.examples_in(pair.label, pair.predicted);
    for (int64_t c = 0; c < e.classes; ++c) (void)e.class_accuracy(c);
  }
  try {
    const mirror::RunRecord r = mirror::read_run(scratch.dir());
    // What the browser and the compare view ask of a record.
    if (mirror::replica_count(r) < 1 || mirror::physical_device_count(r) < 1) __builtin_trap();
    for (size_t i = 1; i < r.steps.size(); ++i)
      if (r.steps[i].global_step <= r.steps[i - 1].global_step) __builtin_trap();  // de-duplicated, in order
    const std::vector<mirror::RunRecord> both{r, r};
    if (!mirror::differing_config_keys(both).empty()) __builtin_trap();
    for (const auto& key : {"optimizer.learning_rate", "batch_size", "model.name"}) mirror::config_value(r, key);
    (void)r.display_name();
    // What the Strategy tab and the trace ask of the timelines: in step order, marks in order.
    if (r.timelines.size() > mirror::kMaxTimelinesKept) __builtin_trap();
    for (size_t i = 0; i < r.timelines.size(); ++i) {
      const mirror::StepTimeline& t = r.timelines[i];
      if (i > 0 && t.global_step <= r.timelines[i - 1].global_step) __builtin_trap();
      for (const auto& m : t.replicas)
        if (m.compute_ms() < 0 || m.allreduce_ms() < 0 || m.update_ms() < 0) __builtin_trap();
      const int last = t.last_to_arrive();
      if (last >= static_cast<int>(t.replicas.size())) __builtin_trap();
      (void)mirror::straggler_sentence(t);
      (void)t.end_ms();
    }
  } catch (const mirror::DataError&) {
  }
  return 0;
}
