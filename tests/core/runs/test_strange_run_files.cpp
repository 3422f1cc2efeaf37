// A shared runs folder where one stranger's run holds a FIFO, a link to /dev/zero or a sparse
// file of gigabytes in place of one of its files. Every reader ends at once naming the file, and
// the listing still lists every other run. (A FIFO as run.json or metrics.jsonl once hung
// `runs list` and the window's Runs page for ever; a timeline.jsonl linked to /dev/zero spun.)
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_file.h"
#include "strange_files.h"
#include "test_helpers.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;
using testing::kAtOnce;
using testing::put_strange;
using testing::Strange;
using testing::TempDir;


// A finished run of three steps, each with its timeline, under `dir`.
void record_run(const std::string& dir) {
  RunWriter w(dir, {{"seed", 3}});
  for (int64_t s = 1; s <= 3; ++s) {
    StepMetrics m;
    m.epoch = 1;
    m.step = m.global_step = s;
    m.samples = 32;
    m.step_seconds = 0.01;
    m.timeline.global_step = s;
    m.timeline.replicas.push_back(ReplicaMarks{0, 0, 32, 0.0, 0.05, 0.4, 1.25, 5.5, 5.625});
    w.on_step(m);
  }
  w.on_finished(RunFinished{});
}

// Larger than a reader of `file` reads: where a sparse file of it is refused for its size.
uint64_t oversize(const std::string& file) {
  if (file == "run.json" || file == "meta.json") return kRunJson.max_bytes + 1;
  return kMaxRecordFileBytes + 1;
}

// Everything each reader says about `run`, read within the time it took.
struct Read {
  std::string said;
  double seconds = 0;
};
Read read_all_ways(const std::string& root, const std::string& run) {
  Read r;
  r.seconds = testing::seconds_of([&] {
    for (const RunRecord& listed : list_runs(root))
      if (listed.dir == run)
        for (const auto& w : listed.warnings) r.said += w + "\n";
    try {
      for (const auto& w : read_run(run).warnings) r.said += w + "\n";  // with its timelines
    } catch (const DataError& e) {
      r.said += std::string(e.what()) + "\n";
    }
    std::vector<std::string> warnings;
    read_evaluations(run, &warnings);
    for (const auto& w : warnings) r.said += w + "\n";
  });
  return r;
}

TEST(StrangeRunFiles, EachReaderEndsAtOnceNamingTheFileAndTheOtherRunsAreListed) {
  for (const char* file : {"run.json", "meta.json", "metrics.jsonl", "timeline.jsonl", "evaluations.jsonl"}) {
    for (const Strange kind : testing::kStrangeKinds) {
      SCOPED_TRACE(std::string(file) + " as " + testing::strange_name(kind));
      TempDir root;
      record_run(root / "a-good");
      record_run(root / "b-strange");
      const fs::path strange = root.path() / "b-strange" / file;
      put_strange(strange, kind, oversize(file));
      std::optional<testing::FifoUnblocker> unblock;
      if (kind == Strange::kFifo) unblock.emplace(strange, std::chrono::milliseconds(3000));
      const Read r = read_all_ways(root.str(), root / "b-strange");
      EXPECT_LT(r.seconds, kAtOnce) << r.said;
      EXPECT_NE(r.said.find(file), std::string::npos) << r.said;
      EXPECT_NE(r.said.find(testing::strange_refusal(kind)), std::string::npos) << r.said;
      unblock.reset();
      const std::vector<RunRecord> runs = list_runs(root.str());
      ASSERT_EQ(runs.size(), 2u);
      EXPECT_EQ(runs[1].name, "a-good");
      EXPECT_EQ(runs[1].status, "finished");
      EXPECT_EQ(runs[1].steps.size(), 3u);
      EXPECT_TRUE(runs[1].warnings.empty()) << runs[1].warnings[0];
      if (std::string(file) == "run.json") {
        EXPECT_EQ(runs[0].status, "unreadable");
      }
    }
  }
}

TEST(UntrustedFile, ReadsARegularFileOrALinkToOneAndNeverPastItsSize) {
  TempDir dir;
  testing::write_file(dir.path() / "a.txt", "hello");
  fs::create_symlink(dir.path() / "a.txt", dir.path() / "link.txt");
  for (const char* name : {"a.txt", "link.txt"}) {
    UntrustedFile f(dir / name, 5);
    ASSERT_TRUE(f.ok()) << f.problem();
    testing::write_file(dir.path() / "a.txt", "hello, and more since");  // grown after the open
    EXPECT_EQ(f.read_all(), "hello");
    EXPECT_EQ(f.read(1, 2), "el");
    EXPECT_EQ(f.read(4, 100), "o");
    testing::write_file(dir.path() / "a.txt", "hello");
  }
  const UntrustedFile big(dir / "a.txt", 4);
  EXPECT_TRUE(big.too_large());
  EXPECT_EQ(big.problem(), "is 5 bytes; at most 4 bytes is read");
  const UntrustedFile none(dir / "none.txt", 4);
  EXPECT_TRUE(none.missing());
  EXPECT_EQ(none.problem(), "does not exist");
  const UntrustedFile folder(dir.str(), 4);
  EXPECT_TRUE(folder.folder());
  EXPECT_EQ(folder.problem(), "is a folder, not a regular file");
  EXPECT_EQ(readable_size(uint64_t{5} << 29), "2.5 GiB");
}

}  // namespace
}  // namespace mirror
