#include "mirror/runs/lesson.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string_view>

#include "mirror/runs/x_axis.h"
#include "mirror/util/error.h"
#include "mirror/util/home.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/json_file.h"

namespace mirror {

// The files of resources/lessons/, embedded at build time (cmake/embed_presets.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_lesson_files();

namespace fs = std::filesystem;

namespace {
constexpr const char* kBuiltIn = "built-in";

// A member that must be a non-empty string.
std::string lesson_text(const nlohmann::json& j, const char* key, const std::string& where) {
  const nlohmann::json* v = json_field(j, key);
  if (!v || !v->is_string() || v->get<std::string>().empty())
    throw ConfigError(fmt::format("{}: '{}' must be a non-empty string", where, key));
  return v->get<std::string>();
}

std::string stem_of(const std::string& path) { return fs::path(path).stem().string(); }
}  // namespace

TrainConfig lesson_run_config(const LessonRun& run, const nlohmann::json& extra) {
  TrainConfig c = with_settings(config_from_preset(run.preset), run.set);
  return extra.empty() ? c : with_settings(c, extra);
}

Lesson lesson_from_json(const nlohmann::json& j, const std::string& name, const std::string& source) {
  const std::string where = fmt::format("lesson {} ({})", name, source);
  if (!j.is_object()) throw ConfigError(fmt::format("{}: a lesson is a JSON object, not {}", where, j.type_name()));
  static const char* const known[] = {"title", "text", "x_axis", "view", "runs", "if_missing"};
  for (const auto& [key, v] : j.items())
    if (std::find_if(std::begin(known), std::end(known), [&key = key](const char* k) { return key == k; }) == std::end(known))
      throw ConfigError(fmt::format("{}: unknown member '{}' (a lesson has title, text, x_axis, view, runs, if_missing)",
                                    where, key));
  Lesson l;
  l.name = name;
  l.source = source;
  l.title = lesson_text(j, "title", where);
  const nlohmann::json* text = json_field(j, "text");
  if (!text || !text->is_array() || text->empty())
    throw ConfigError(fmt::format("{}: 'text' must be a list of paragraphs", where));
  for (const auto& p : *text) {
    if (!p.is_string()) throw ConfigError(fmt::format("{}: every paragraph of 'text' must be a string", where));
    l.text.push_back(p.get<std::string>());
  }
  l.x_axis = json_string(j, "x_axis", "step");
  if (!x_axis_named(l.x_axis))
    throw ConfigError(fmt::format("{}: x_axis '{}' is not one of {}", where, l.x_axis, x_axis_names()));
  const std::string view = json_string(j, "view", "compare");
  if (view != "compare" && view != "scaling")
    throw ConfigError(fmt::format("{}: view '{}' is not compare or scaling", where, view));
  l.scaling = view == "scaling";
  if (const nlohmann::json* missing = json_field(j, "if_missing")) {
    if (!missing->is_object()) throw ConfigError(fmt::format("{}: 'if_missing' must map dataset names to settings", where));
    l.if_missing = *missing;
  }
  const nlohmann::json* runs = json_field(j, "runs");
  if (!runs || !runs->is_array() || runs->empty())
    throw ConfigError(fmt::format("{}: 'runs' must be a list of at least one run", where));
  if (runs->size() > 64) throw ConfigError(fmt::format("{}: {} runs is too many for a lesson (at most 64)", where, runs->size()));
  for (size_t i = 0; i < runs->size(); ++i) {
    const nlohmann::json& r = (*runs)[i];
    const std::string at = fmt::format("{}, run {}", where, i + 1);
    if (!r.is_object()) throw ConfigError(fmt::format("{}: a run is an object with label, preset and set", at));
    LessonRun run;
    run.label = lesson_text(r, "label", at);
    run.preset = lesson_text(r, "preset", at);
    if (const nlohmann::json* set = json_field(r, "set")) run.set = *set;
    if (json_field(r, "expect_failure")) run.expect_failure = lesson_text(r, "expect_failure", at);
    try {
      const TrainConfig c = lesson_run_config(run);
      if (const nlohmann::json* instead = json_field(l.if_missing, c.dataset.name.c_str())) lesson_run_config(run, *instead);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("{} ({}): {}", at, run.label, e.what()));
    }
    l.runs.push_back(std::move(run));
  }
  return l;
}

namespace {
// A lesson file's relative dataset.data_dir is relative to the file's folder (a teacher keeps the
// lesson beside its data and copies both), in every run's "set" and in "if_missing".
void resolve_lesson_data_dirs(nlohmann::json& j, const fs::path& folder) {
  auto resolve = [&folder](nlohmann::json& settings) {
    if (!settings.is_object()) return;
    const auto it = settings.find("dataset.data_dir");
    if (it == settings.end() || !it->is_string()) return;
    const std::string dir = it->get<std::string>();
    if (dir.empty() || dir.front() == '~' || fs::path(dir).is_absolute()) return;
    *it = (folder / dir).lexically_normal().string();
  };
  if (!j.is_object()) return;
  if (const auto runs = j.find("runs"); runs != j.end() && runs->is_array())
    for (auto& run : *runs)
      if (run.is_object())
        if (const auto set = run.find("set"); set != run.end()) resolve(*set);
  if (const auto missing = j.find("if_missing"); missing != j.end() && missing->is_object())
    for (auto& settings : *missing) resolve(settings);
}
}  // namespace

Lesson read_lesson_file(const std::string& path) {
  nlohmann::json j = parse_json_file(path, kLessonJson);
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  resolve_lesson_data_dirs(j, (ec ? fs::path(path) : absolute).parent_path());
  return lesson_from_json(j, stem_of(path), path);
}

std::string lessons_dir() {
  if (const char* d = std::getenv("MIRROR_LESSONS_DIR"); d && *d) return d;
  return (fs::path(user_data_dir()) / "mirror-workbench" / "lessons").string();
}

std::vector<Lesson> lessons(std::vector<std::string>* warnings) {
  std::vector<Lesson> out;
  for (const auto& [file, text] : embedded_lesson_files())
    out.push_back(lesson_from_json(parse_json_text(text, std::string(file), kLessonJson), stem_of(std::string(file)), kBuiltIn));
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(lessons_dir(), ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    try {
      Lesson l = read_lesson_file(f.string());
      const auto same = std::find_if(out.begin(), out.end(), [&l](const Lesson& o) { return o.name == l.name; });
      if (same != out.end()) *same = std::move(l);
      else out.push_back(std::move(l));
    } catch (const ConfigError& e) {
      if (warnings) warnings->push_back(e.what());
    }
  }
  return out;
}

Lesson find_lesson(const std::string& name_or_path) {
  if (name_or_path.size() > 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0)
    return read_lesson_file(name_or_path);
  std::vector<std::string> warnings;
  std::string names;
  for (Lesson& l : lessons(&warnings)) {
    if (l.name == name_or_path) return std::move(l);
    names += (names.empty() ? "" : ", ") + l.name;
  }
  throw ConfigError(fmt::format("no lesson named '{}' (known: {}; or give the path of a lesson's .json file){}",
                                name_or_path, names, warnings.empty() ? "" : "; skipped: " + warnings.front()));
}

}  // namespace mirror
