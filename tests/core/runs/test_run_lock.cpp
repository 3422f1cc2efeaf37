// One writer per run folder, within one process (the window resuming a run it still writes, two
// writers given one --run-dir): the second is refused at once, naming the holder; the folder is
// free again once the first writer is gone or its run has ended. Across processes and kill -9:
// tests/cli/test_one_writer.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "mirror/runs/run_lock.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

namespace mirror {
namespace {
using testing::error_of;
using testing::TempDir;

TEST(RunLock, ASecondWriterIsRefusedAtOnceNamingTheHolder) {
  TempDir dir;
  const std::string run = dir / "run";
  const std::string holder = "is being written by process " + std::to_string(::getpid()) + " on host " + host_name();
  {
    RunWriter first(run, {{"seed", 1}});
    EXPECT_NE(error_of<RunError>([&] { RunLock again(run); }).find(holder), std::string::npos);
    EXPECT_NE(error_of<RunError>([&] { RunWriter::resume(run, 0); }).find(holder), std::string::npos);
    EXPECT_NE(error_of<RunError>([&] { RunWriter second(run, {{"seed", 2}}); }).find(holder), std::string::npos);
    first.on_finished(RunFinished{});
    first.release_folder();  // as RecordedRun::run does once every sink has heard the end
    EXPECT_NO_THROW(RunWriter::resume(run, 0));
  }
  // The refused writers wrote nothing: the run is the first one's.
  EXPECT_EQ(RunWriter::read_run_json(run).at("config").at("seed"), 1);
  const RunLock taken(run);
  EXPECT_NE(testing::read_file(dir.path() / "run" / kRunLockFile).find("process " + std::to_string(::getpid())),
            std::string::npos);
}

TEST(RunLock, AFolderThatCannotHoldTheLockIsAConfigError) {
  TempDir dir;
  EXPECT_NE(error_of<ConfigError>([&] { RunLock lock(dir / "missing"); }).find("cannot make the lock"), std::string::npos);
}

}  // namespace
}  // namespace mirror
