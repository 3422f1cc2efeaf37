// Tested by tests/core/runs/test_recorded_run.cpp and tests/core/runs/test_run_reader.cpp.
#include "mirror/runs/resume.h"

#include <fmt/format.h>

#include <filesystem>

#include "mirror/data/dataset.h"
#include "mirror/runs/checkpoint.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"

namespace mirror {

ResumePoint resume_point(const std::string& dir) {
  ResumePoint p;
  const nlohmann::json run = RunWriter::read_run_json(dir);
  if (written_by_live_process(run))
    throw ConfigError(fmt::format("{}: still being written by process {} on this machine; stop it before resuming",
                                  dir, json_int(run, "pid")));
  if (!run.is_object() || !run.contains("config"))
    throw ConfigError(fmt::format("{}: run.json holds no config to resume with", dir));
  p.config = config_from_json(run.at("config"));
  p.data = recorded_data(run);
  if (!p.data.data_dir.empty()) p.config.dataset.data_dir = p.data.data_dir;  // recorded absolute
  if (const auto* changes = json_field(run, "data_changes"); changes && changes->is_array()) p.data_changes = *changes;
  const auto checkpoints = list_checkpoints((std::filesystem::path(dir) / "checkpoints").string());
  if (checkpoints.empty())
    throw ConfigError(fmt::format("{}: no checkpoint to resume from (checkpoints/ is empty)", dir));
  for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
    try {
      p.saved = read_checkpoint(*it);
    } catch (const DataError& e) {
      p.unreadable.emplace_back(*it, e.what());
      continue;
    }
    p.checkpoint = *it;
    p.from_step = p.saved.position.global_step;
    return p;
  }
  if (checkpoints.size() == 1) throw DataError(p.unreadable.front().second);
  throw DataError(fmt::format("{}: none of its {} checkpoints can be read; the newest: {}", dir, checkpoints.size(),
                              p.unreadable.front().second));
}

namespace {
std::string hash_prefix(const std::string& hash) { return hash.empty() ? "none" : hash.substr(0, 12); }
}  // namespace

std::string describe_data_change(const RecordedData& recorded, const DatasetInfo& now) {
  if (recorded.content_hash.empty()) return {};  // nothing to compare with
  if (recorded.file_count == now.file_count && recorded.content_hash == now.content_hash) return {};
  return fmt::format("{} held {} (content {}) when the run was recorded and holds {} (content {}) now",
                     recorded.data_dir.empty() ? std::string("its data") : recorded.data_dir,
                     counted(recorded.file_count, "file"), hash_prefix(recorded.content_hash),
                     counted(now.file_count, "file"), hash_prefix(now.content_hash));
}

}  // namespace mirror
