// libFuzzer target: a teacher's lesson file, read as `mirrortrain lesson FILE.json` and the
// window's Lessons dialog read it (its relative data folders resolved, every run checked against
// the presets and settings). A refusal (ConfigError) is fine. A bug: any other exception, a crash,
// a leak, a hang; a lesson that was accepted but one of whose runs, with or without the lesson's
// settings for a missing dataset (what plan_lesson applies on a machine without it), then
// cannot be configured.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "mirror/runs/lesson.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = mirror::fuzz::scratch().put("lesson.json", data, size);
  mirror::Lesson lesson;
  try {
    lesson = mirror::read_lesson_file(path);
  } catch (const mirror::ConfigError&) {
    return 0;
  }
  if (lesson.title.empty() || lesson.text.empty() || lesson.runs.empty() || lesson.runs.size() > 64) __builtin_trap();
  for (const mirror::LessonRun& run : lesson.runs) {
    if (run.label.empty() || run.preset.empty()) __builtin_trap();
    const mirror::TrainConfig c = mirror::lesson_run_config(run);  // throws (a bug here) if the lesson lied
    if (const nlohmann::json* instead = mirror::json_field(lesson.if_missing, c.dataset.name.c_str()))
      (void)mirror::lesson_run_config(run, *instead);
  }
  return 0;
}
