// Reading runs back: following a run as it is written, interrupted and stalled runs, the
// person's notes on runs, and what the writer records about its process.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <cmath>

#include "mirror/runs/compare.h"
#include "mirror/runs/resume.h"
#include "mirror/runs/run_writer.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::error_of;
using mirror::testing::TempDir;

namespace {
void append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

std::string step_line(int64_t step, double loss, double seconds = 0.01, int64_t samples = 32) {
  return "{\"type\":\"step\",\"epoch\":1,\"global_step\":" + std::to_string(step) + ",\"samples\":" +
         std::to_string(samples) + ",\"step_seconds\":" + std::to_string(seconds) + ",\"loss\":" +
         std::to_string(loss) + "}\n";
}

// A pid that certainly belonged to a process that has ended.
int64_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

}  // namespace

TEST(RunFollower, ReadsOnlyWhatWasAppendedAndWaitsForAWholeLine) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "running", "config": {"seed": 1}})";
  const std::string metrics = dir / "metrics.jsonl";
  append(metrics, step_line(1, 2.0) + step_line(2, 1.5, 0.02, 16));
  RunFollower f(dir.str());
  ASSERT_EQ(f.record().steps.size(), 2u);
  EXPECT_EQ(f.record().steps[1].samples_seen, 48);
  EXPECT_NEAR(f.record().steps[1].train_seconds, 0.03, 1e-12);
  EXPECT_FALSE(f.poll());  // nothing new
  // A line the writer has not finished yet is neither parsed nor counted as malformed.
  const std::string third = step_line(3, 1.25);
  append(metrics, third.substr(0, 20));
  EXPECT_TRUE(f.poll());
  EXPECT_EQ(f.record().steps.size(), 2u);
  EXPECT_TRUE(f.record().warnings.empty()) << f.record().warnings[0];
  append(metrics, third.substr(20) + "{\"type\":\"epoch\",\"epoch\":1,\"loss\":1.4,\"val_accuracy\":0.7,\"seconds\":0.5}\n");
  EXPECT_TRUE(f.poll());
  ASSERT_EQ(f.record().steps.size(), 3u);
  EXPECT_DOUBLE_EQ(f.record().steps[2].loss, 1.25);
  ASSERT_EQ(f.record().epochs.size(), 1u);
  EXPECT_EQ(f.record().epochs[0].global_step, 3);
  EXPECT_EQ(f.record().epochs[0].samples_seen, 80);
  EXPECT_DOUBLE_EQ(f.record().best_val_accuracy, 0.7);
  // A resume after a kill: the steps past the checkpoint are written again and replace the first ones.
  append(metrics, "{\"type\":\"resumed\",\"global_step\":1}\n" + step_line(2, 1.0) + step_line(3, 0.5));
  f.poll();
  ASSERT_EQ(f.record().steps.size(), 3u);
  EXPECT_DOUBLE_EQ(f.record().steps[1].loss, 1.0);
  EXPECT_DOUBLE_EQ(f.record().steps[2].loss, 0.5);
  EXPECT_EQ(f.record().steps[2].samples_seen, 96);
  EXPECT_TRUE(f.record().epochs.empty());  // the epoch ended after the checkpoint
  // The status follows run.json as the writer replaces it.
  std::ofstream(dir / "run.json.tmp") << R"({"status": "finished", "config": {"seed": 1}})";
  std::filesystem::rename(dir / "run.json.tmp", dir / "run.json");
  std::filesystem::last_write_time(dir / "run.json", std::filesystem::file_time_type::clock::now() + std::chrono::seconds(2));
  EXPECT_TRUE(f.poll());
  EXPECT_EQ(f.record().status, "finished");
  // Once the writer is gone, a cut last line is reported.
  append(metrics, "{\"type\":\"step\",\"glo");
  f.poll();
  EXPECT_TRUE(f.record().warnings.empty());
  f.finish();
  ASSERT_EQ(f.record().warnings.size(), 1u);
  EXPECT_NE(f.record().warnings[0].find("1 malformed line"), std::string::npos);
}

TEST(RunFollower, DamagedDocumentsNeverThrowAnythingButADataError) {
  TempDir dir;
  for (const char* bad : {"[]", "3", "\"running\""}) {
    std::ofstream(dir / "run.json") << bad;
    const std::string err = error_of<DataError>([&] { read_run(dir.str()); });
    EXPECT_NE(err.find("not a JSON object"), std::string::npos) << bad << ": " << err;
  }
  // Fields of the wrong type read as absent; a null loss (a NaN, as JSON writes it) as NaN.
  std::ofstream(dir / "run.json") << R"({"status": null, "pid": "123", "host": 7, "config": [], "devices": "cpu"})";
  std::ofstream(dir / "metrics.jsonl")
      << "{\"type\":\"step\",\"global_step\":1,\"loss\":null,\"replicas\":[1,{\"compute_ms\":\"x\"}]}\n"
         "[1,2]\n"
         "{\"type\":\"epoch\",\"epoch\":\"one\",\"val_accuracy\":null,\"val_loss\":null}\n";
  RunRecord r;
  EXPECT_NO_THROW(r = read_run(dir.str()));
  EXPECT_EQ(r.status, "unknown");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_TRUE(std::isnan(r.steps[0].loss));
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_TRUE(std::isnan(r.epochs[0].val_loss));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("1 malformed line"), std::string::npos);
  EXPECT_EQ(replica_count(r), 1);
  EXPECT_EQ(run_model_label(r), "?");
  EXPECT_NO_THROW(comparison_table({r, r}));
  EXPECT_NO_THROW(scaling_rows({r}));
}

// Numbers no run writes (found by UBSan: a double too large for int64, step 1 less than
// INT64_MIN, samples overflowing over two lines) are skipped like damaged lines, with a warning.
TEST(RunFollower, OutOfRangeCountsAreSkippedNotOverflowed) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "finished"})";
  std::ofstream(dir / "metrics.jsonl") << step_line(1, 0.5)
                                       << R"({"type":"step","epoch":1,"global_step":1e300,"samples":32})" "\n"
                                       << R"({"type":"step","epoch":1,"global_step":-9223372036854775808,"samples":32})" "\n"
                                       << R"({"type":"step","epoch":1,"global_step":2,"samples":9223372036854775807})" "\n"
                                       << R"({"type":"step","epoch":1,"global_step":3,"samples":18446744073709551615})" "\n"
                                       << R"({"type":"epoch","epoch":1e30})" "\n"
                                       << step_line(2, 0.25);
  const RunRecord r = read_run(dir.str());
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[1].global_step, 2);
  EXPECT_EQ(r.steps[1].samples_seen, 64);
  EXPECT_TRUE(r.epochs.empty());
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.back().find("5 malformed lines"), std::string::npos) << r.warnings.back();
}

TEST(RunFollower, ResumesKeepWallTimeAndDurationAndCountEachEpochOnce) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "finished"})";
  std::ofstream(dir / "metrics.jsonl")
      << "{\"type\":\"step\",\"epoch\":1,\"global_step\":1,\"step_seconds\":0.5,\"wall\":1.0}\n"
         "{\"type\":\"step\",\"epoch\":1,\"global_step\":2,\"step_seconds\":0.5,\"wall\":2.0}\n"
         // killed; resumed from step 1 by a new writer, whose clock starts at 0
         "{\"type\":\"resumed\",\"global_step\":1}\n"
         "{\"type\":\"step\",\"epoch\":1,\"global_step\":2,\"step_seconds\":0.5,\"wall\":0.5}\n"
         // stopped at step 2 of a 4-step epoch: a partial epoch line, then resumed from step 2
         "{\"type\":\"epoch\",\"epoch\":1,\"seconds\":1.0,\"wall\":0.75}\n"
         "{\"type\":\"final\",\"status\":\"stopped\",\"seconds\":3.0}\n"
         "{\"type\":\"resumed\",\"global_step\":2}\n"
         "{\"type\":\"step\",\"epoch\":1,\"global_step\":3,\"step_seconds\":0.5,\"wall\":0.5}\n"
         "{\"type\":\"step\",\"epoch\":1,\"global_step\":4,\"step_seconds\":0.5,\"wall\":1.0}\n"
         "{\"type\":\"epoch\",\"epoch\":1,\"seconds\":2.0,\"val_accuracy\":0.5,\"wall\":1.5}\n"
         "{\"type\":\"final\",\"status\":\"finished\",\"seconds\":2.0}\n";
  const RunRecord r = read_run(dir.str());
  ASSERT_EQ(r.steps.size(), 4u);
  const double wall[] = {1.0, 1.5, 2.25, 2.75};  // continued from the step, then from the epoch's end
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(r.steps[i].wall_seconds, wall[i]) << i;
  EXPECT_DOUBLE_EQ(r.steps[3].train_seconds, 2.0);
  ASSERT_EQ(r.epochs.size(), 1u);  // the partial epoch 1 gave way to the whole one
  EXPECT_EQ(r.epochs[0].global_step, 4);
  EXPECT_DOUBLE_EQ(r.epochs[0].val_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(r.epochs[0].wall_seconds, 3.25);  // validation included
  EXPECT_DOUBLE_EQ(r.duration_seconds, 1.75 + 2.0);  // before the last resume, plus the last session
}

TEST(RunFollower, ARunningRecordThatCannotBeCheckedGoesStaleWhenItsFilesStopChanging) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "running"})";  // no host or pid: an older record
  EXPECT_EQ(read_run(dir.str()).status, "running");
  const auto old = std::filesystem::file_time_type::clock::now() - std::chrono::minutes(kStalledAfterMinutes + 5);
  std::filesystem::last_write_time(dir / "run.json", old);
  const RunRecord r = read_run(dir.str());
  EXPECT_EQ(r.status, "stalled");
  EXPECT_NE(r.warnings[0].find("nothing was written for 2"), std::string::npos) << r.warnings[0];
}

TEST(Resume, RefusesARunAnotherLiveProcessIsWriting) {
  TempDir dir;
  nlohmann::json run = {{"status", "running"}, {"host", host_name()}, {"pid", static_cast<int64_t>(::getpid())},
                        {"config", to_json(config_from_preset("spirals-mlp"))}};
  std::ofstream(dir / "run.json") << run.dump();
  EXPECT_TRUE(written_by_live_process(run));
  EXPECT_NE(error_of<ConfigError>([&] { resume_point(dir.str()); }).find("still being written by process"),
            std::string::npos);
  run["pid"] = dead_pid();
  std::ofstream(dir / "run.json") << run.dump();
  EXPECT_NE(error_of<ConfigError>([&] { resume_point(dir.str()); }).find("no checkpoint to resume from"),
            std::string::npos);
}

TEST(RunFollower, ARunWhoseProcessIsGoneReadsAsInterrupted) {
  TempDir dir;
  nlohmann::json run = {{"status", "running"}, {"host", host_name()}, {"pid", dead_pid()}};
  std::ofstream(dir / "run.json") << run.dump();
  RunRecord r = read_run(dir.str());
  EXPECT_EQ(r.status, "interrupted");
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("--resume"), std::string::npos);
  // This very process is alive: running it stays.
  run["pid"] = static_cast<int64_t>(::getpid());
  std::ofstream(dir / "run.json") << run.dump();
  EXPECT_EQ(read_run(dir.str()).status, "running");
  // Another machine's process cannot be checked from here: believed.
  run["pid"] = dead_pid();
  run["host"] = "some-other-host-" + host_name();
  std::ofstream(dir / "run.json") << run.dump();
  EXPECT_EQ(read_run(dir.str()).status, "running");
}

TEST(RunWriter, RecordsItsProcessAndExtraMembers) {
  TempDir dir;
  RunWriter w(dir / "run", {{"seed", 3}}, {{"sweep", {{"id", "sw-1"}, {"index", 2}}}});
  const auto j = RunWriter::read_run_json(dir / "run");
  EXPECT_EQ(j["pid"].get<int64_t>(), ::getpid());
  EXPECT_EQ(j["host"], host_name());
  EXPECT_EQ(j["sweep"]["index"], 2);
  EXPECT_EQ(j["config"]["seed"], 3);
}

TEST(RunMeta, RoundTripsAndAMalformedFileLosesNothingElse) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "finished"})";
  EXPECT_EQ(read_run(dir.str()).display_name(), std::filesystem::path(dir.str()).filename().string());
  write_meta(dir.str(), RunMeta{"baseline", {"lr", "keep"}, "first try\nwith dropout"});
  const RunRecord r = read_run(dir.str());
  EXPECT_EQ(r.display_name(), "baseline");
  EXPECT_EQ(r.meta.tags, (std::vector<std::string>{"lr", "keep"}));
  EXPECT_EQ(r.meta.notes, "first try\nwith dropout");
  std::ofstream(dir / "meta.json") << "{\"name\": \"bro";
  const RunRecord broken = read_run(dir.str());
  EXPECT_EQ(broken.status, "finished");
  EXPECT_TRUE(broken.meta.name.empty());
  ASSERT_EQ(broken.warnings.size(), 2u);  // the bad meta.json, and no metrics.jsonl
  EXPECT_NE(broken.warnings[0].find("meta.json"), std::string::npos);
  EXPECT_NE(error_of<RunError>([] { write_meta("/nonexistent-dir/for/sure", RunMeta{}); }), "");
  // Writing over a malformed meta.json keeps it as meta.json.bak for mending.
  write_meta(dir.str(), RunMeta{"again", {}, ""});
  EXPECT_EQ(read_run(dir.str()).display_name(), "again");
  std::ifstream bak(dir / "meta.json.bak");
  std::string kept((std::istreambuf_iterator<char>(bak)), std::istreambuf_iterator<char>());
  EXPECT_EQ(kept, "{\"name\": \"bro");
}

TEST(RunFollower, APidNoProcessCanHaveReadsAsNotRunning) {
  TempDir dir;
  // 2^40 as a pid_t is 0, which kill() took for our own process group: "running" forever.
  for (const int64_t pid : {int64_t{1} << 40, (int64_t{1} << 22) + 1, int64_t{1} << 32}) {
    const nlohmann::json run = {{"status", "running"}, {"host", host_name()}, {"pid", pid}};
    std::ofstream(dir / "run.json") << run.dump();
    const RunRecord r = read_run(dir.str());
    EXPECT_EQ(r.status, "interrupted") << pid;
    ASSERT_FALSE(r.warnings.empty());
    EXPECT_NE(r.warnings[0].find("run.json's pid " + std::to_string(pid) + " is out of range (at most 4194304)"),
              std::string::npos) << r.warnings[0];
    EXPECT_FALSE(written_by_live_process(run)) << pid;
  }
}

namespace {
// This process's resident set, in KiB: "VmRSS" (now) or "VmHWM" (its peak) of /proc/self/status.
int64_t resident_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  return -1;
}
}  // namespace

// A stranger's metrics.jsonl with a line of 64 MiB and no end: read in pieces, the line dropped
// as it goes by (it once was read whole, and copied, before being refused), the lines after it kept.
TEST(RunFollower, ALineLongerThanAnyMetricsLineIsDroppedWithoutBeingHeldWhole) {
  TempDir dir;
  std::ofstream(dir / "run.json") << R"({"status": "finished", "config": {"seed": 1}})";
  const std::string metrics = dir / "metrics.jsonl";
  append(metrics, step_line(1, 2.0) + "{\"type\":\"step\",\"loss\":\"" + std::string(64 << 20, 'x'));
  const pid_t child = ::fork();  // measured alone: this process's peak may come from other tests
  if (child == 0) {
    const int64_t before = resident_kib("VmRSS");
    RunFollower f(dir.str());
    const int64_t grew = resident_kib("VmHWM") - before;
#ifdef __SANITIZE_THREAD__
    const bool held = false;  // ThreadSanitizer's shadow memory grows with every byte read: not measured
#else
    const bool held = grew >= 32 * 1024;
#endif
    ::_exit(f.record().steps.size() != 1 ? 1 : held ? 2 : 0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: the first step was lost; 2: the line was held in memory (32 MiB or more)";
  append(metrics, "\"}\n" + step_line(2, 1.5));
  RunFollower f(dir.str());
  ASSERT_EQ(f.record().steps.size(), 2u);
  EXPECT_DOUBLE_EQ(f.record().steps[1].loss, 1.5);
  EXPECT_FALSE(f.record().warnings.empty());  // the dropped line is said
}

namespace {
StepMetrics step_with_timeline(int64_t step, int replicas, double pace_seconds = 0) {
  StepMetrics m;
  m.epoch = 1;
  m.step = m.global_step = step;
  m.samples = 32;
  m.step_seconds = 0.01;
  m.pace_seconds = pace_seconds;
  m.timeline.global_step = step;
  for (int r = 0; r < replicas; ++r)
    m.timeline.replicas.push_back(
        ReplicaMarks{r, 0, 32 / replicas, 0.0123 * r, 0.05 + r, 0.41 + r, 1.25 + r, 5.5, 5.625});
  m.timeline.processes = {ProcessSpans{0, 0, 0, 0, 5.75}};
  if (step > 1) m.timeline.idle = {IdleSpan{IdleKind::kPace, 0, -180.25, -0.125}};
  return m;
}
}  // namespace

TEST(RunWriter, EveryStepsTimelineGoesToTimelineJsonlAndReadsBack) {
  TempDir dir;
  const std::string run = dir / "run";
  {
    RunWriter w(run, {{"seed", 3}});
    for (int64_t s = 1; s <= 3; ++s) w.on_step(step_with_timeline(s, 2, 0.25 * static_cast<double>(s - 1)));
    w.on_finished(RunFinished{});
  }
  // metrics.jsonl keeps its lines short: the timeline has its own file.
  std::ifstream metrics(run + "/metrics.jsonl");
  const std::string first((std::istreambuf_iterator<char>(metrics)), std::istreambuf_iterator<char>());
  EXPECT_EQ(first.find("timeline"), std::string::npos);
  RunRecord r = read_run(run);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0];
  ASSERT_EQ(r.timelines.size(), 3u);
  EXPECT_EQ(r.timelines[2].global_step, 3);
  ASSERT_EQ(r.timelines[2].replicas.size(), 2u);
  EXPECT_DOUBLE_EQ(r.timelines[2].replicas[1].gradients_ready, 2.25);
  EXPECT_DOUBLE_EQ(r.timelines[2].replicas[1].started, 0.012);  // to the microsecond
  ASSERT_EQ(r.timelines[2].idle.size(), 1u);
  EXPECT_DOUBLE_EQ(r.timelines[2].idle[0].begin, -180.25);
  EXPECT_DOUBLE_EQ(r.steps[2].pace_seconds, 0.5);
  // list_runs leaves them unread (it reads every run of a folder).
  EXPECT_TRUE(list_runs(dir.str()).at(0).timelines.empty());

  // A kill cut the last line; a resume from step 1 trains steps 2 and 3 again.
  append(run + "/timeline.jsonl", "{\"step\":4,\"replicas\":[[0,0,16,0,0.");
  RunRecord cut = read_run(run);
  EXPECT_EQ(cut.timelines.size(), 3u);
  ASSERT_EQ(cut.warnings.size(), 1u);
  EXPECT_NE(cut.warnings[0].find("timeline.jsonl"), std::string::npos) << cut.warnings[0];
  {
    auto w = RunWriter::resume(run, 1);
    w->on_step(step_with_timeline(2, 2, 0.125));
    w->on_finished(RunFinished{});
  }
  RunRecord resumed = read_run(run);
  ASSERT_EQ(resumed.timelines.size(), 2u);  // steps 1 and 2, the old 2 and 3 dropped
  EXPECT_EQ(resumed.timelines[1].global_step, 2);
  EXPECT_DOUBLE_EQ(resumed.steps.back().pace_seconds, 0.125);  // the session before the checkpoint had none

  // A run recorded before timelines: none, and no warning.
  TempDir old;
  std::ofstream(old / "run.json") << R"({"status": "finished"})";
  append(old / "metrics.jsonl", step_line(1, 2.0));
  const RunRecord o = read_run(old.str());
  EXPECT_TRUE(o.timelines.empty());
  EXPECT_TRUE(o.warnings.empty()) << o.warnings[0];
}
