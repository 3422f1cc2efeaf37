// `lesson [NAME]`: the lessons listed, or one lesson's text printed, its runs trained as a sweep and
// each run's outcome judged as the lesson means it.
#include <fmt/format.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"
#include "tables.h"
#include "training.h"

namespace mirror::cli {

namespace {
// `text` wrapped at `width` columns, each line indented by `indent` spaces.
std::string wrapped(const std::string& text, size_t width, size_t indent) {
  std::string out, line;
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + "\n";
  return out;
}

int list_lessons() {
  std::vector<std::string> warnings;
  const auto all = lessons(&warnings);
  for (const auto& w : warnings)
    fmt::print(stderr, "{}: warning: lesson skipped: {}\n", g_prog, terminal_text(w, LineBreaks::kKeep));
  for (const auto& l : all)
    fmt::print("{:<15} {} ({}{})\n", terminal_text(l.name), terminal_text(l.title),
               counted(static_cast<int64_t>(l.runs.size()), "run"), l.source == "built-in" ? "" : ", " + terminal_text(l.source));
  fmt::print("\nYour own lessons go in {} (JSON; see the README's Lessons section).\n", lessons_dir());
  return kExitOk;
}
}  // namespace

int run_lesson(const LessonArgs& args) {
  if (args.name.empty()) return list_lessons();
  Lesson lesson;
  std::unique_ptr<Sweep> sweep;
  try {
    lesson = find_lesson(args.name);
    const LessonPlan plan = plan_lesson(lesson, args.max_steps);
    const std::string root = args.root.empty() ? default_runs_root() : args.root;
    if (!args.json) {
      fmt::print("{}\n\n", terminal_text(lesson.title));
      for (const auto& p : lesson.text) fmt::print("{}\n", terminal_text(wrapped(p, 78, 2), LineBreaks::kKeep));
      for (const auto& n : plan.notes) fmt::print("Note: {}\n", terminal_text(n, LineBreaks::kKeep));
      fmt::print("Training {} under {}\n", counted(static_cast<int64_t>(plan.points.size()), "run"), root);
    }
    sweep = std::make_unique<Sweep>(plan.points, SweepOptions{root, lesson.scaling, {}, lesson.name});
  } catch (const std::exception& e) {
    return setup_error(e);
  }
  std::vector<RunRecord> done;
  std::vector<std::string> outcomes;
  int exit_code = kExitOk;
  const int setup = train_sweep(*sweep, args.json, done, [&](size_t position, const Execution& r) {
    const LessonRun& run = lesson.runs.at(position - 1);
    const LessonRunOutcome outcome = judge_lesson_run(run, r.status, r.message);
    if (!outcome.as_meant) exit_code = r.exit_code != kExitOk ? r.exit_code : kExitRunFailed;
    outcomes.push_back(fmt::format("{}. {}: {}", position, run.label, outcome.words));
  });
  if (setup != kExitOk) return setup;
  if (!args.json && !done.empty()) {
    fmt::print("\n{}\n", terminal_text(lesson.title));
    for (const auto& o : outcomes) fmt::print("  {}\n", terminal_text(o, LineBreaks::kKeep));  // whole: a message to grep or copy
    fmt::print("\n");
    if (done.size() > 1) print_comparison(done, false);
    if (lesson.scaling) print_scaling(done, false);
    fmt::print("\nOpen them in the window: mirrorbench --lesson {}\n", terminal_text(lesson.name));
  }
  return exit_code;
}

}  // namespace mirror::cli
