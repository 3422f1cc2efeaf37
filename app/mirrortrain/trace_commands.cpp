// mirrortrain trace RUN: a recorded run's step timelines as a Chrome trace (Perfetto, chrome://tracing).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "commands.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/trace.h"
#include "mirror/train/events_json.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror::cli {

void check_trace_file(const std::string& path, const char* flag) {
  const std::filesystem::path file(path);
  const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw ConfigError(fmt::format("{} {}: the folder {} does not exist", flag, path, folder.string()));
  if (std::filesystem::is_directory(file, ec))
    throw ConfigError(fmt::format("{} {}: is a folder; give the trace file's name", flag, path));
  try {
    trace_target(path);  // a device, a pipe, a link to one: refused before anything trains
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{} {}", flag, e.what()));
  }
}

int run_trace(const std::string& run_arg, const std::string& root, const std::string& steps_arg,
              const std::string& output) {
  StepRange range;
  std::string dir;
  try {
    range = parse_step_range(steps_arg);
    dir = resolve_run(root, run_arg);
    if (!output.empty()) check_trace_file(output, "--output");
  } catch (const std::exception& e) {
    return config_error(e);
  }
  const std::filesystem::path timeline_file = std::filesystem::path(dir) / kTimelineFile;
  if (!std::filesystem::exists(timeline_file))
    return config_error(ConfigError(fmt::format(
        "{}: no {}: the run was recorded before timelines existed (train it again to trace it)", dir, kTimelineFile)));

  // The run's step metrics (loss, learning rate, wall time), then its timelines in the range,
  // read line by line so that a long run's file is never held whole (RunRecord keeps the latest).
  RunFollower follower(dir, /*timelines=*/false);
  follower.poll();
  follower.finish();
  RunRecord record = follower.record();
  int64_t skipped = 0, first = 0, last = 0;  // first..last: the steps it has timelines of
  std::string file_problem;
  for_each_json_line(
      timeline_file.string(), kMetricsLineJson,
      [&](int64_t, nlohmann::json line) {
        try {
          StepTimeline t = timeline_from_json(line);
          first = first == 0 ? t.global_step : std::min(first, t.global_step);
          last = std::max(last, t.global_step);
          if (range.contains(t.global_step)) record.timelines.push_back(std::move(t));
        } catch (const ConfigError&) {
          ++skipped;
        }
      },
      [&](int64_t line, const std::string& why) {
        if (line == 0) file_problem = why;  // not a regular file, or too large: not read
        else ++skipped;
      });
  if (!file_problem.empty())
    return config_error(ConfigError(fmt::format("{}: {}: {}", dir, kTimelineFile, file_problem)));
  if (skipped > 0)
    fmt::print(stderr, "mirrortrain: warning: {} lines of {} were not timelines and were skipped\n", skipped,
               kTimelineFile);

  if (record.timelines.empty())
    return config_error(ConfigError(
        first == 0 ? fmt::format("{}: {} holds no timeline: nothing to trace", dir, kTimelineFile)
                   : fmt::format("{}: no timeline of steps {}-{}: the run has timelines of steps {}-{}", dir,
                                 range.first, range.last, first, last)));
  const std::string default_name = fmt::format("trace-steps-{}-{}.json", range.first, range.last);
  const std::string path = !output.empty() ? output : (std::filesystem::path(dir) / default_name).string();
  try {
    const TraceWritten w = write_trace(path, steps_with_timelines(record, range), trace_options_of(record, range));
    fmt::print("Trace: {} ({} steps, {} bytes; open it in ui.perfetto.dev or chrome://tracing)\n",
               terminal_text(w.path), w.steps, w.bytes);
  } catch (const ConfigError& e) {
    return config_error(ConfigError(fmt::format("{}: {}", dir, e.what())));
  }
  return kExitOk;
}

}  // namespace mirror::cli
