// The what-if's fit from recorded runs: their timelines, machine, simulated link and the bytes
// their processes exchanged (predict.h).
// Tested by tests/core/runs/test_predict.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "predict_fit.h"

namespace mirror {
namespace predict_impl {
namespace {

// The link a run simulated (`train --link`), from run.json's config; nullopt when none.
std::optional<LinkSpec> simulated_link_of(const RunRecord& run) {
  const auto config = run.run.find("config");
  if (config == run.run.end() || !config->is_object()) return std::nullopt;
  const auto link = config->find("simulated_link");
  if (link == config->end() || !link->is_object()) return std::nullopt;
  LinkSpec spec;
  spec.name = link->value("name", "simulated");
  const auto latency = link->find("latency_s");
  const auto bandwidth = link->find("bandwidth_bytes_per_s");
  const bool unlimited = bandwidth == link->end() || bandwidth->is_null();  // a bare latency=...
  if (latency == link->end() || !latency->is_number() || (!unlimited && !bandwidth->is_number())) return std::nullopt;
  spec.latency_s = latency->get<double>();
  spec.bandwidth_bytes_per_s = unlimited ? LinkSpec::kUnlimited : bandwidth->get<double>();
  spec.simulated = true;
  return spec;
}

// A run's source with what it says of the machine: its usable cores, the threads per replica,
// and whether every replica was a logical device of the CPU ("cpu:0/logical:1").
// A timeline line no clock gives (a mark of 1e308 ms) is refused, naming the line: fitted, such
// lines predicted 300-digit step times and a "512x speed-up".
void check_timelines(const RunRecord& run) {
  if (!run.timeline_problem.empty())
    throw DataError(fmt::format("run '{}': {}; the what-if fits only what a clock could record (train the run again)",
                                run.name, run.timeline_problem));
}

Source source_of(const RunRecord& run) {
  Source src{&run.timelines, 0};
  if (const auto machine = run.run.find("machine"); machine != run.run.end() && machine->is_object()) {
    const auto cores = machine->find("cores"), threads = machine->find("intra_op_threads");
    if (cores != machine->end() && cores->is_number_integer()) src.usable_cores = std::max(0, cores->get<int>());
    if (threads != machine->end() && threads->is_number_integer())
      src.intra_op_threads = std::max(0, threads->get<int>());
  }
  // One process: its replicas share this machine's cores. (Several processes may be on several
  // machines; the record does not say which shared what.)
  if (const auto devices = run.run.find("devices");
      run.processes() == 1 && devices != run.run.end() && devices->is_array() && !devices->empty()) {
    src.logical_cpu = true;
    for (const auto& d : *devices) {
      const std::string name = d.is_string() ? d.get<std::string>() : std::string();
      // "cpu:0/logical:1", "rank 1 cpu:0/logical:0" from several processes (which share cores too),
      // or a study's one replica, "cpu:0": it computed on the same cores as the logical devices after it.
      src.logical_cpu = src.logical_cpu && name.find("cpu") != std::string::npos;
    }
  }
  return src;
}

// The median over the steps that recorded it of `exchange_bytes` (whole: of the bytes a process
// exchanged) or `overlap_bytes` (of those the buckets carried during backward); 0: none recorded.
double bytes_of(const RunRecord& run, int64_t StepMetrics::*field) {
  std::vector<double> bytes;
  for (const auto& s : run.steps)
    if (s.*field > 0) bytes.push_back(static_cast<double>(s.*field));
  return bytes.empty() ? 0 : median(bytes);
}

double gradient_bytes_of(const RunRecord& run) {
  auto it = run.run.find("parameters");
  if (it == run.run.end() || !it->is_number())
    throw DataError(fmt::format("run '{}' recorded no parameter count (run.json \"parameters\")", run.name));
  return 4.0 * it->get<double>();  // float32 gradients
}

}  // namespace
}  // namespace predict_impl

FittedModel fit_model(const RunRecord& run, const std::optional<LinkSpec>& fallback_link) {
  predict_impl::check_timelines(run);
  const std::vector<StepTimeline>& timelines = run.timelines;
  if (timelines.empty())
    throw DataError(fmt::format("run '{}' recorded no step timeline (timeline.jsonl): it cannot be fitted",
                                run.name));
  // A run over a simulated link: its α is known, which a single replica count cannot fit.
  const std::optional<LinkSpec> fallback = fallback_link ? fallback_link : predict_impl::simulated_link_of(run);
  predict_impl::Source src = predict_impl::source_of(run);
  src.gradient_bytes = predict_impl::gradient_bytes_of(run);
  src.exchanged_bytes = predict_impl::bytes_of(run, &StepMetrics::exchange_bytes);
  src.overlap_bytes = predict_impl::bytes_of(run, &StepMetrics::overlap_bytes);
  return predict_impl::fit_sources({src}, fallback);
}

FittedModel fit_model(const std::vector<RunRecord>& runs, const std::optional<LinkSpec>& fallback_link) {
  std::vector<predict_impl::Source> sources;
  for (const RunRecord& run : runs) predict_impl::check_timelines(run);
  for (const RunRecord& run : runs)
    if (!run.timelines.empty()) {
      sources.push_back(predict_impl::source_of(run));
      sources.back().gradient_bytes = predict_impl::gradient_bytes_of(run);
      sources.back().exchanged_bytes = predict_impl::bytes_of(run, &StepMetrics::exchange_bytes);
      sources.back().overlap_bytes = predict_impl::bytes_of(run, &StepMetrics::overlap_bytes);
    }
  if (sources.empty()) throw DataError("none of the runs recorded a step timeline: nothing to fit");
  return predict_impl::fit_sources(sources, fallback_link);
}

}  // namespace mirror
