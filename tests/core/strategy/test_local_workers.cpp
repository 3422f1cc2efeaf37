// Local runs' workers meet in a private folder made fresh for each run, never on a port.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "mirror/strategy/local_workers.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
namespace fs = std::filesystem;

TEST(LocalWorkers, EachRunMeetsInAFreshPrivateFolderRemovedAfterwards) {
  std::string first;
  {
    LocalRendezvous a, b;
    first = a.dir();
    EXPECT_NE(a.dir(), b.dir());  // two runs never share one
    struct stat st {};
    ASSERT_EQ(lstat(a.dir().c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);  // nobody else may open it
    EXPECT_EQ(st.st_uid, geteuid());
    std::ofstream(fs::path(a.dir()) / "store") << "keys";
  }
  EXPECT_FALSE(fs::exists(first));  // with what the workers wrote in it
}

TEST(LocalWorkers, WorkersAreToldTheFolderAndNoPort) {
  LocalRendezvous where;
  const WorkerEnv e = local_worker_env(1, 2, where, "test");
  EXPECT_EQ(e.store_dir, where.dir());
  EXPECT_EQ(e.master_port, 0);
  EXPECT_EQ(meeting_place(e), "a private folder on this machine");

  const fs::path out = fs::path(where.dir()) / "env";
  const pid_t pid = spawn_worker(
      {"/bin/sh", "-c", "echo \"$RANK $WORLD_SIZE $MASTER_ADDR $MIRROR_STORE_DIR ${MASTER_PORT-none}\" > " + out.string()},
      e);
  ASSERT_EQ(wait_for_worker(pid), 0);
  std::string line;
  std::getline(std::ifstream(out), line);
  const char* inherited = std::getenv("MASTER_PORT");  // a port the test's own environment may carry
  EXPECT_EQ(line, "1 2 127.0.0.1 " + where.dir() + " " + (inherited ? inherited : "none"));
}

TEST(LocalWorkers, AFolderOthersCanOpenIsRefused) {
  if (!c10d_available()) GTEST_SKIP() << "this build has no c10d";
  LocalRendezvous where;
  const fs::path shared = fs::path(where.dir()) / "shared";
  fs::create_directory(shared);
  fs::permissions(shared, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  WorkerEnv e = local_worker_env(0, 2, where, "test");
  e.store_dir = shared.string();
  const std::string m = mirror::testing::error_of<RunError>([&] { WorkerGroup::connect(e, std::chrono::seconds(5)); });
  EXPECT_NE(m.find("is not a folder that only this user can open"), std::string::npos) << m;
}

TEST(LocalWorkers, TwoWorkersMeetInTheFolderAndExchange) {
  if (!c10d_available()) GTEST_SKIP() << "this build has no c10d";
  LocalRendezvous where;
  std::shared_ptr<WorkerGroup> groups[2];
  std::string errors[2];
  std::vector<std::vector<double>> gathered[2];
  std::thread ranks[2];
  for (int r = 0; r < 2; ++r)
    ranks[r] = std::thread([&, r] {
      try {
        groups[r] = WorkerGroup::connect(local_worker_env(r, 2, where, "test"), std::chrono::seconds(20));
        gathered[r] = groups[r]->allgather({static_cast<double>(r + 1)});
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(errors[r], "") << "rank " << r;
    EXPECT_EQ(groups[r]->hosts().size(), 2u);
    EXPECT_EQ(gathered[r], (std::vector<std::vector<double>>{{1.0}, {2.0}}));
  }
}

// The commands a person pastes into a shell or sbatch: names and paths from a model file stay
// single words, and the job name a slug, whatever they hold.
TEST(LocalWorkers, LaunchCommandsQuoteThePathsAndSlugTheJobName) {
  const auto c = launch_commands("it's $(rm -rf ~).json", 2, "x\nrm -rf ~\n", "$HOME/mirror-runs/a b;c");
  EXPECT_NE(c.torchrun.find("--config 'it'\\''s $(rm -rf ~).json'"), std::string::npos) << c.torchrun;
  EXPECT_NE(c.sbatch.find("#SBATCH --job-name=x-rm-rf\n"), std::string::npos) << c.sbatch;
  EXPECT_NE(c.sbatch.find("--run-dir \"$HOME\"/'mirror-runs/a b;c'\n"), std::string::npos) << c.sbatch;
  EXPECT_EQ(std::count(c.sbatch.begin(), c.sbatch.end(), '\n'), 7) << c.sbatch;  // no line added
}

// The workers of one run, as `train --nproc` starts every rank and the window the ranks after
// its own: each rank told its place, the exit codes read in rank order.
TEST(LocalWorkers, StartsEachRankAndReportsTheFirstRanksCodeElseTheFirstFailure) {
  LocalRendezvous where;
  const std::string out = where.dir();
  LocalWorkers others(/*first_rank=*/1, /*world=*/4);
  others.start({"/bin/sh", "-c", "echo \"$RANK/$WORLD_SIZE $MIRROR_LAUNCHER\" > " + out + "/$RANK; exit $((RANK == 1 ? 0 : RANK + 10))"},
               where, "test");
  EXPECT_EQ(others.wait(), 12);  // rank 1 exited 0, so the first failing one: rank 2
  for (int rank = 1; rank < 4; ++rank) {
    std::string line;
    std::getline(std::ifstream(out + "/" + std::to_string(rank)), line);
    EXPECT_EQ(line, std::to_string(rank) + "/4 test");
  }
  EXPECT_FALSE(fs::exists(out + "/0"));  // rank 0 is the caller's own

  LocalWorkers all(/*first_rank=*/0, /*world=*/3);
  all.start({"/bin/sh", "-c", "exit $((RANK + 5))"}, where, "test");
  EXPECT_EQ(all.wait(), 5);  // rank 0's
  EXPECT_EQ(all.wait(), 0);  // every one reaped already
}

TEST(LocalWorkers, ASignalReachesEveryWorkerAndItsEndIsReportedAsAShellWould) {
  LocalRendezvous where;
  LocalWorkers workers(/*first_rank=*/0, /*world=*/3);
  workers.start({"/bin/sh", "-c", "exec sleep 60"}, where, "test");
  const auto begun = std::chrono::steady_clock::now();
  workers.signal(SIGTERM);
  EXPECT_EQ(workers.wait(), exit_code_for_signal(SIGTERM));
  EXPECT_EQ(exit_code_for_signal(SIGTERM), 143);
  EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::seconds(30));  // not their minute of sleep
  workers.signal(SIGKILL);  // reaped: nothing left to signal, and no stranger's pid
}

TEST(LocalWorkers, RanksOutsideTheWorldAreRefused) {
  EXPECT_THROW(LocalWorkers(3, 2), std::invalid_argument);
  EXPECT_THROW(LocalWorkers(-1, 2), std::invalid_argument);
  LocalWorkers none(2, 2);
  EXPECT_EQ(none.wait(), 0);
}
