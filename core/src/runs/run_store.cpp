// The runs folder: where runs live (default_runs_root), a new run's folder in it, the list of its
// runs, and each run's name, tags and notes (meta.json, the one file people edit).
// Tested by tests/core/runs/test_run_reader.cpp and tests/core/runs/test_run_dir_name.cpp.
#include "mirror/runs/run_reader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/home.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_text.h"
#include "mirror/util/words.h"

namespace fs = std::filesystem;

namespace mirror {

RunMeta read_meta(const std::string& dir, std::string* warning) {
  RunMeta m;
  const auto path = fs::path(dir) / "meta.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return m;
  try {
    const auto j = parse_json_file(path.string(), kRunMetaJson);
    if (!j.is_object()) {
      if (warning) *warning = fmt::format("{}: not a JSON object; name, tags and notes ignored", path.string());
      return RunMeta{};
    }
    m.name = json_string(j, "name");
    m.notes = json_string(j, "notes");
    if (const auto it = j.find("tags"); it != j.end() && it->is_array())
      for (const auto& t : *it)
        if (t.is_string()) m.tags.push_back(t.get<std::string>());
  } catch (const DataError& e) {
    if (warning) *warning = fmt::format("{}; name, tags and notes ignored", e.what());
    return RunMeta{};
  }
  return m;
}

void write_meta(const std::string& dir, const RunMeta& meta) {
  const auto path = fs::path(dir) / "meta.json";
  std::string unreadable;
  read_meta(dir, &unreadable);
  std::error_code ec;
  if (!unreadable.empty()) fs::rename(path, fs::path(dir) / "meta.json.bak", ec);  // keep what a person may mend
  const nlohmann::json j = {{"name", meta.name}, {"tags", meta.tags}, {"notes", meta.notes}};
  try {
    write_file_atomically(path.string(), j.dump(2) + "\n");
  } catch (const std::exception& e) {
    throw RunError(e.what());
  }
}

std::vector<RunRecord> list_runs(const std::string& root) {
  std::vector<RunRecord> out;
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root, fs::directory_options::skip_permission_denied, ec)) {
    std::error_code denied;
    if (e.is_directory(denied) && fs::exists(e.path() / "run.json", denied)) dirs.push_back(e.path());
  }
  std::sort(dirs.rbegin(), dirs.rend());
  for (const auto& d : dirs) {
    try {
      out.push_back(read_run(d.string(), /*timelines=*/false));
    } catch (const DataError& e) {
      RunRecord broken;
      broken.dir = d.string();
      broken.name = d.filename().string();
      broken.status = "unreadable";
      broken.run = nlohmann::json::object();
      broken.warnings.push_back(e.what());
      out.push_back(std::move(broken));
    }
  }
  return out;
}

std::string default_runs_root() {
  if (const char* d = std::getenv("MIRROR_RUNS_DIR"); d && *d) return d;
  return (fs::path(user_data_dir()) / "mirror-workbench" / "runs").string();
}

std::string new_run_dir(const std::string& root, const std::string& label) {
  // The label is a model's or preset's name, text we did not write: as a slug, and joined by
  // child_path, which refuses anything but one name, the run lands inside root whatever it holds.
  const std::string name = fmt::format("{}-{}", utc_now("%Y%m%d-%H%M%S"), path_slug(label));
  std::string dir = child_path(root, name).string();
  for (int n = 2; fs::exists(dir); ++n) dir = child_path(root, fmt::format("{}-{}", name, n)).string();
  return dir;
}

}  // namespace mirror
