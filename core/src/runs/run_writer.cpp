// Tested by tests/core/runs/test_run_folder.cpp and tests/core/runs/test_run_reader.cpp.
#include "mirror/runs/run_writer.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <torch/version.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>

#include "mirror/model/cpu_gemm.h"
#include "mirror/runs/evaluations.h"
#include "mirror/train/events_json.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "mirror/util/memory.h"
#include "mirror/util/threads.h"
#include "mirror/util/version.h"

namespace mirror {

namespace {
std::string now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

// (device, inode) of `path`, or (0, 0) when it is not there.
std::pair<uint64_t, uint64_t> file_id(const std::filesystem::path& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}
}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::system_error(errno, std::generic_category(), fmt::format("{}: cannot write", path));
  int err = 0;
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fflush(f) != 0 || ::fsync(fileno(f)) != 0)
    err = errno ? errno : EIO;
  if (std::fclose(f) != 0 && err == 0) err = errno ? errno : EIO;
  if (err == 0 && std::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {  // the reason is kept before the clean-up can change errno
    std::remove(tmp.c_str());
    throw std::system_error(err, std::generic_category(), fmt::format("{}: cannot write", path));
  }
}

std::string utc_now(const char* format) {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  return std::strftime(buf, sizeof buf, format, &tm) > 0 ? buf : "";
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

RunWriter::RunWriter(std::string dir, nlohmann::json config, const nlohmann::json& extra) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw ConfigError(fmt::format("run directory {}: cannot create it ({})", dir_, ec.message()));
  lock_.emplace(dir_);  // before anything is read or written: two runs given one --run-dir at once
  if (std::filesystem::exists(std::filesystem::path(dir_) / "run.json"))
    throw ConfigError(fmt::format("run directory {} already holds a run; choose a new --run-dir", dir_));
  run_ = {{"format", 1},
          {"status", "running"},
          {"started_at", now_iso8601()},
          {"config", std::move(config)},
          {"host", host_name()},
          {"pid", static_cast<int64_t>(::getpid())},
          {"versions", {{"mirror_workbench", kVersion}, {"libtorch", TORCH_VERSION}}}};
  for (const auto& [k, v] : extra.items()) run_[k] = v;
  write_run_json();
  metrics_.open(std::filesystem::path(dir_) / "metrics.jsonl", std::ios::app);
  if (!metrics_) throw ConfigError(fmt::format("run directory {}: cannot open metrics.jsonl", dir_));
  remember_files();
}

void RunWriter::remember_files() {
  folder_id_ = file_id(dir_);
  metrics_id_ = file_id(std::filesystem::path(dir_) / "metrics.jsonl");
}

void RunWriter::check_files_still_there() const {
  if (file_id(dir_) != folder_id_)
    throw RunError(fmt::format("the run folder {} was deleted, moved or replaced while the run trained, so nothing more "
                               "can be recorded in it; training stops. If you moved it, move it back and resume the "
                               "run; otherwise start it again", dir_));
  if (file_id(std::filesystem::path(dir_) / "metrics.jsonl") != metrics_id_)
    throw RunError(fmt::format("{}/metrics.jsonl was deleted or replaced while the run trained, so its steps would be "
                               "lost; training stops. Resume the run to continue from its last checkpoint", dir_));
}

nlohmann::json RunWriter::read_run_json(const std::string& dir) {
  const auto path = std::filesystem::path(dir) / "run.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ConfigError(fmt::format("{}: no run here (no run.json)", dir));
  try {
    return parse_json_file(path.string(), kRunJson);
  } catch (const DataError& e) {  // resuming is what a person asked for: a configuration error
    throw ConfigError(e.what());
  }
}

std::unique_ptr<RunWriter> RunWriter::resume(const std::string& dir, int64_t from_step, const nlohmann::json& update,
                                             std::optional<RunLock> lock) {
  std::unique_ptr<RunWriter> w(new RunWriter());
  w->dir_ = dir;
  if (lock) w->lock_ = std::move(lock);
  else w->lock_.emplace(dir);
  w->run_ = read_run_json(dir);
  for (const auto& [key, value] : update.items()) w->run_[key] = value;
  w->run_["status"] = "running";
  w->run_["resumed_at"] = now_iso8601();
  w->run_["resumed_from_step"] = from_step;
  w->run_["host"] = host_name();
  w->run_["pid"] = static_cast<int64_t>(::getpid());
  w->write_run_json();
  w->metrics_.open(std::filesystem::path(dir) / "metrics.jsonl", std::ios::app);
  if (!w->metrics_) throw ConfigError(fmt::format("run directory {}: cannot open metrics.jsonl", dir));
  w->remember_files();
  // A line cut by a kill ends without a newline: start on a fresh line so ours parse.
  w->metrics_ << '\n';
  w->append({{"type", "resumed"}, {"global_step", from_step}}, true);
  // Likewise for the evaluations, so that those after the checkpoint go even if none follow.
  const auto evaluations = std::filesystem::path(dir) / kEvaluationsFile;
  if (std::filesystem::exists(evaluations)) {
    w->evaluations_.open(evaluations, std::ios::app);
    if (!w->evaluations_) throw ConfigError(fmt::format("run directory {}: cannot open {}", dir, kEvaluationsFile));
    w->evaluations_ << '\n';
    w->append_line(w->evaluations_, kEvaluationsFile, {{"type", "resumed"}, {"global_step", from_step}}, true);
  }
  // And the timelines: a reader drops those of steps trained again (the step numbers go back).
  const auto timeline = std::filesystem::path(dir) / kTimelineFile;
  if (std::filesystem::exists(timeline)) {
    w->timeline_.open(timeline, std::ios::app);
    if (!w->timeline_) throw ConfigError(fmt::format("run directory {}: cannot open {}", dir, kTimelineFile));
    w->timeline_ << '\n';
  }
  return w;
}

void RunWriter::write_run_json() {
  write_file_atomically((std::filesystem::path(dir_) / "run.json").string(), run_.dump(2) + "\n");
}

void RunWriter::append(const nlohmann::json& j, bool flush) {
  const auto now = std::chrono::steady_clock::now();
  flush = flush || now - last_flush_ > std::chrono::seconds(1);
  if (flush) last_flush_ = now;
  if (flush && timeline_.is_open()) timeline_.flush();  // its lines are written before their step's
  append_line(metrics_, "metrics.jsonl", j, flush);
}

void RunWriter::append_line(std::ofstream& file, const char* name, const nlohmann::json& j, bool flush) {
  errno = 0;
  file << j.dump() << '\n';
  if (flush) {
    file.flush();
    check_files_still_there();  // two stat calls, at most once a second and at each epoch
  }
  // A full disk (or a removed one) fails the run here, at the first write it refuses, rather
  // than training on with nothing recorded. What is on disk stays readable: run.json is
  // replaced only whole, and checkpoints only by renaming a complete file over the old one.
  if (!file) {
    const int err = errno;
    const auto path = (std::filesystem::path(dir_) / name).string();
    throw RunError(fmt::format("cannot write {}: {}{}. Everything up to the last checkpoint is kept: make room, then "
                               "resume the run", path, err ? std::strerror(err) : "write failed", disk_full_hint(path)));
  }
}

void RunWriter::on_evaluation(const Evaluation& e) {
  if (!evaluations_.is_open()) {
    const auto path = std::filesystem::path(dir_) / kEvaluationsFile;
    evaluations_.open(path, std::ios::app);
    if (!evaluations_) throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  append_line(evaluations_, kEvaluationsFile, to_json(e), true);
}

void RunWriter::on_started(const RunStarted& e) {
  run_["devices"] = e.devices;
  run_["communicator"] = {{"name", e.communicator}, {"reason", e.communicator_reason}};
  if (!e.cuda_graphs.empty()) run_["cuda_graphs_status"] = e.cuda_graphs;
  run_["parameters"] = e.parameters;
  run_["steps_per_epoch"] = e.steps_per_epoch;
  // How busy the machine was: a scaling study tells a quiet measurement from a shared one.
  run_["machine"] = {{"cores", usable_cores()},
                     {"intra_op_threads", e.intra_op_threads},
                     {"intra_op_threads_reason", e.intra_op_threads_reason},
                     {"malloc", malloc_name()},
                     {"cpu_gemm", cpu_gemm::library()}};
  if (const auto load = load_average()) run_["machine"]["load_average_at_start"] = *load;
  cpu_use_.emplace();
  try {
    write_run_json();
  } catch (const std::exception&) {
  }
}

namespace {
nlohmann::json with_wall(nlohmann::json j, std::chrono::steady_clock::time_point since) {
  j["wall"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  return j;
}
}  // namespace

void RunWriter::on_step(const StepMetrics& e) {
  nlohmann::json j = to_json(e);
  if (const auto it = j.find("timeline"); it != j.end()) {  // timeline.jsonl's, not metrics.jsonl's
    if (!timeline_.is_open()) {
      const auto path = std::filesystem::path(dir_) / kTimelineFile;
      timeline_.open(path, std::ios::app);
      if (!timeline_) throw RunError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
    }
    append_line(timeline_, kTimelineFile, *it, false);
    j.erase(it);
  }
  append(with_wall(std::move(j), started_), false);
}

void RunWriter::on_epoch(const EpochMetrics& e) {
  append(with_wall(to_json(e), started_), true);
  run_["last_epoch"] = to_json(e);
}

void RunWriter::on_hold() {
  if (timeline_.is_open()) timeline_.flush();
  metrics_.flush();
}

void RunWriter::on_finished(const RunFinished& e) {
  try {  // the end of a run that failed to write (a full disk) cannot be written either
    if (metrics_) append(to_json(e), true);
  } catch (const RunError&) {
  }
  run_["status"] = run_status_name(e.status);
  run_["message"] = e.message;
  run_["ended_at"] = now_iso8601();
  run_["final"] = to_json(e);
  if (cpu_use_ && run_.contains("machine")) {
    if (const auto load = load_average()) run_["machine"]["load_average_at_end"] = *load;
    // Only where every other busy CPU is somebody else's: not beside this run's own worker
    // processes, and not when this process may use only some of the cores /proc/stat counts.
    const nlohmann::json* workers = run_.contains("workers") ? &run_["workers"] : nullptr;
    const bool alone = !workers || !workers->is_object() || workers->value("world_size", 1) <= 1;
    const bool whole_machine = usable_cores() >= static_cast<int>(std::thread::hardware_concurrency());
    if (const auto others = cpu_use_->other_programs_cores(); others && alone && whole_machine)
      run_["machine"]["other_programs_cores"] = *others;
  }
  try {
    write_run_json();
  } catch (const std::exception&) {
  }
}

}  // namespace mirror
