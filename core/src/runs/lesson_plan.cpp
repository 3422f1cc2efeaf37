// Lessons planned, found among recorded runs, and judged: what lesson.cpp reads, put to work.
// Tested by tests/core/runs/test_lesson.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "mirror/data/dataset_registry.h"
#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/json_file.h"

namespace mirror {

namespace fs = std::filesystem;

LessonPlan plan_lesson(const Lesson& lesson, int64_t max_steps, const DatasetProbe& present) {
  const DatasetProbe probe = present ? present : [](const DatasetOptions& o, std::string* why) { return dataset_present(o, why); };
  LessonPlan plan;
  std::map<std::string, bool> checked;  // dataset name -> present
  for (size_t i = 0; i < lesson.runs.size(); ++i) {
    const LessonRun& run = lesson.runs[i];
    SweepPoint p;
    try {
      p.config = lesson_run_config(run);
      const std::string dataset = p.config.dataset.name;
      const nlohmann::json* instead = json_field(lesson.if_missing, dataset.c_str());
      if (instead) {
        std::string why;
        const auto known = checked.find(dataset);
        const bool here = known != checked.end() ? known->second : probe(p.config.dataset, &why);
        if (known == checked.end()) {
          checked[dataset] = here;
          if (!here) {
            std::string settings;
            for (const auto& [key, v] : instead->items())
              settings += fmt::format("{}{}={}", settings.empty() ? "" : ", ", key, v.is_string() ? v.get<std::string>() : v.dump());
            plan.notes.push_back(fmt::format("{} is not on this machine ({}): its runs train with {} instead", dataset,
                                             why, settings));
          }
        }
        if (!here) p.config = lesson_run_config(run, *instead);
      }
      if (max_steps > 0) p.config.max_steps = p.config.max_steps > 0 ? std::min(p.config.max_steps, max_steps) : max_steps;
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("lesson {}, run {} ({}): {}", lesson.name, i + 1, run.label, e.what()));
    }
    p.label = run.label;
    plan.points.push_back(std::move(p));
  }
  return plan;
}

std::vector<std::string> recorded_lesson_runs(const std::string& root, const Lesson& lesson) {
  struct Found {
    std::string dir;
    int64_t index = 0;
    int64_t of = 0;
    std::string label;
  };
  std::map<std::string, std::vector<Found>> by_sweep;  // sweep ids sort by time
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    std::error_code missing;
    if (!fs::exists(e.path() / "run.json", missing)) continue;
    nlohmann::json j;
    try {
      j = parse_json_file((e.path() / "run.json").string(), kRunJson);
    } catch (const DataError&) {
      continue;  // a broken run is no lesson's
    }
    const nlohmann::json* sweep = j.is_object() ? json_field(j, "sweep") : nullptr;
    if (!sweep || !sweep->is_object() || json_string(*sweep, "lesson") != lesson.name) continue;
    by_sweep[json_string(*sweep, "id")].push_back(
        {e.path().string(), json_int(*sweep, "index"), json_int(*sweep, "of"), json_string(*sweep, "label")});
  }
  for (auto it = by_sweep.rbegin(); it != by_sweep.rend(); ++it) {
    auto runs = it->second;
    std::sort(runs.begin(), runs.end(), [](const Found& a, const Found& b) { return a.index < b.index; });
    bool complete = runs.size() == lesson.runs.size() && static_cast<int64_t>(runs.size()) == runs.front().of;
    for (size_t i = 0; complete && i < runs.size(); ++i) {
      std::string status;
      try {
        status = read_run(runs[i].dir).status;
      } catch (const DataError&) {
        status = "unreadable";
      }
      complete = runs[i].index == static_cast<int64_t>(i + 1) && runs[i].label == lesson.runs[i].label &&
                 (status == "finished" || status == "failed");
    }
    if (!complete) continue;
    std::vector<std::string> dirs;
    for (const auto& r : runs) dirs.push_back(r.dir);
    return dirs;
  }
  return {};
}

LessonRunOutcome judge_lesson_run(const LessonRun& run, const std::string& status, const std::string& message) {
  const std::string& expected = run.expect_failure;
  LessonRunOutcome o;
  if (status == "failed") {
    o.meant_failure = !expected.empty() && message.find(expected) != std::string::npos;
    o.as_meant = o.meant_failure;
    o.words = o.meant_failure ? "failed, as the lesson means it to: " + message
                              : expected.empty() ? "failed: " + message
                                                 : fmt::format("failed: {} (the lesson expected it to fail with \"{}\")",
                                                               message, expected);
  } else if (status == "finished") {
    o.as_meant = expected.empty();
    o.words = expected.empty() ? "finished" : fmt::format("finished, but the lesson expected it to fail with \"{}\"", expected);
  } else {
    o.words = status;
  }
  return o;
}

LessonRunOutcome judge_lesson_run(const LessonRun& run, RunStatus status, const std::string& message) {
  return judge_lesson_run(run, run_status_name(status), message);
}

}  // namespace mirror
