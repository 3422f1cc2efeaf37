// RunFollower's reading of timeline.jsonl, one line at a time: a line cut short by a kill is
// skipped and counted; a line that reads as JSON but holds no clock's reading is remembered, with
// its line number, so that the what-if can refuse the run naming it.
// Tested by tests/core/runs/test_run_reader.cpp.
#include <fmt/format.h>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/events_json.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror {

void RunFollower::apply_timeline_line(const std::string& line) {
  // Its number in the file: the lines before it, those dropped as over-long included.
  const int64_t number = ++timeline_lines_ + (timeline_skipped_ - timeline_refused_);
  if (line.empty()) return;  // a resumed run starts on a fresh line
  StepTimeline t;
  nlohmann::json j;
  try {
    j = parse_json_text(line, "a timeline line", kMetricsLineJson);
  } catch (const std::exception&) {  // cut by a kill, or not JSON
    ++timeline_skipped_, ++timeline_refused_;
    return;
  }
  try {
    t = timeline_from_json(j);
  } catch (const std::exception& e) {  // JSON, but not a timeline a clock gives (ConfigError)
    ++timeline_skipped_, ++timeline_refused_;
    if (timeline_problem_.empty()) timeline_problem_ = fmt::format("{} line {}: {}", kTimelineFile, number, e.what());
    return;
  }
  auto& timelines = record_.timelines;
  while (!timelines.empty() && timelines.back().global_step >= t.global_step) timelines.pop_back();  // trained again
  timelines.push_back(std::move(t));
  if (timelines.size() > kMaxTimelinesKept) {
    const size_t drop = timelines.size() - kMaxTimelinesKept + kMaxTimelinesKept / 8;
    timelines.erase(timelines.begin(), timelines.begin() + static_cast<std::ptrdiff_t>(drop));
    timelines_dropped_ += static_cast<int64_t>(drop);
  }
}

}  // namespace mirror
