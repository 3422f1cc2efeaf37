#pragma once
// Lessons: a short text for a class plus the runs that show what it says, trained one after
// another as a sweep and then opened compared on the right x axis. The built-in lessons are the
// JSON files of resources/lessons/, embedded at build time; a teacher's own are files of the same
// form in the lessons folder (lessons_dir()) or given by path. The form:
//
//   {"title": "Broken sync",
//    "text": ["First paragraph.", "Second paragraph."],
//    "x_axis": "step",                 // step, epoch, samples, time or wall (default: step)
//    "view": "compare",                // or "scaling": the runs open on the scaling page
//    "runs": [{"label": "in sync", "preset": "spirals-mlp", "set": {"logical": 2}},
//             {"label": "nudged", "preset": "spirals-mlp", "set": {"perturb_replica_at_step": 25},
//              "expect_failure": "out of sync"}],
//    "if_missing": {"reuters": {"dataset.name": "synthetic-text"}}}
//
// "set" takes the settings a sweep does (short names such as lr, batch, logical, epochs, or dotted
// config keys). "expect_failure": the run is meant to fail with a message containing this text.
// "if_missing": settings for every run whose dataset is not on this machine.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "mirror/data/dataset_options.h"
#include "mirror/runs/sweep.h"
#include "mirror/train/events.h"

namespace mirror {

struct LessonRun {
  std::string label;
  std::string preset;
  nlohmann::json set = nlohmann::json::object();
  std::string expect_failure;
};

struct Lesson {
  std::string name;                 // its file's stem: "broken-sync"
  std::string title;
  std::vector<std::string> text;    // paragraphs
  std::string x_axis = "step";    // one of kXAxes' names (runs/x_axis.h)
  bool scaling = false;             // "view": "scaling"
  std::vector<LessonRun> runs;
  nlohmann::json if_missing = nlohmann::json::object();  // dataset name -> settings
  std::string source;               // "built-in", or the file it was read from
};

// A lesson from its JSON document. Every run is checked as it would be planned (its preset
// exists, its settings apply), so a broken file is refused when opened, not halfway through a
// class. Throws ConfigError naming `source`, the run and the problem.
Lesson lesson_from_json(const nlohmann::json& j, const std::string& name, const std::string& source);
// A lesson run's config: its preset with its settings, then `extra` settings over them (the
// lesson's if_missing ones), checked. Throws ConfigError as with_settings does.
TrainConfig lesson_run_config(const LessonRun& run, const nlohmann::json& extra = nlohmann::json::object());
// Reads a lesson file. Throws ConfigError (unreadable, not JSON, or as lesson_from_json).
Lesson read_lesson_file(const std::string& path);

// $MIRROR_LESSONS_DIR, else $XDG_DATA_HOME/mirror-workbench/lessons, else
// ~/.local/share/mirror-workbench/lessons. Throws ConfigError when there is no home folder.
std::string lessons_dir();
// The built-in lessons in display order, then the lessons folder's (by file name; one named as a
// built-in one replaces it). A file that cannot be read is left out and said in `warnings`.
std::vector<Lesson> lessons(std::vector<std::string>* warnings = nullptr);
// A lesson by name (as `lessons` lists them) or by the path of a .json file. Throws ConfigError
// listing the known names.
Lesson find_lesson(const std::string& name_or_path);

using DatasetProbe = std::function<bool(const DatasetOptions&, std::string* why)>;

struct LessonPlan {
  std::vector<SweepPoint> points;     // one per run, in order, labelled as the lesson labels them
  std::vector<std::string> notes;     // what was changed for this machine, in words
};
// The lesson's runs as sweep points. A run whose dataset `present` says is missing gets the
// lesson's if_missing settings for it (and a note says so); `max_steps` > 0 caps every run (quick
// checks). Throws ConfigError as lesson_from_json does.
LessonPlan plan_lesson(const Lesson& lesson, int64_t max_steps = 0, const DatasetProbe& present = {});

// How one run of a lesson went, judged against what the lesson means it to do, in the words that
// the CLI's summary and the window's Lesson dock both show.
struct LessonRunOutcome {
  bool as_meant = false;       // it finished as planned, or failed as the lesson means it to
  bool meant_failure = false;  // it failed, and the lesson means it to (the window says so in its banner)
  std::string words;           // "finished", "failed, as the lesson means it to: replicas out of sync ...",
                               // "failed: MESSAGE", "stopped", ...
};
// `status` is a run's status word as run.json and RunRecord::status give it ("finished",
// "failed", "stopped", "interrupted", "running", ...); `message` what the run said when it ended
// (RunFinished::message, run.json's "message"). A run meant to fail (expect_failure) went as meant
// only when it failed with a message containing that text; any other run only when it finished.
// A run that did not end (stopped, interrupted, still running) did not go as meant; its words
// are its status. Never throws.
LessonRunOutcome judge_lesson_run(const LessonRun& run, const std::string& status, const std::string& message);
// The same for a run that has just ended (RunFinished's status and message).
LessonRunOutcome judge_lesson_run(const LessonRun& run, RunStatus status, const std::string& message);

// The runs under `root` recorded for `lesson` by its newest complete sweep (every planned run
// there, finished or failed, labelled as the lesson labels them now), in the lesson's order;
// empty when there is none.
std::vector<std::string> recorded_lesson_runs(const std::string& root, const Lesson& lesson);

}  // namespace mirror
