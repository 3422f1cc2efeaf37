// Where a worker process stands among the others, read from torchrun's and Slurm's variables.
// And which c10d backend sums across processes: NCCL or Gloo.
#include <gtest/gtest.h>

#include <map>

#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"

using namespace mirror;

namespace {
EnvLookup env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST(Workers, LocalWorkersMeetInTheirFolderWithoutAPort) {
  const auto e = worker_env_from(env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"},
                                      {"MIRROR_STORE_DIR", "/run/user/1000/mirror-workers-x"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->store_dir, "/run/user/1000/mirror-workers-x");
  EXPECT_EQ(e->master_port, 0);
  EXPECT_EQ(meeting_place(*e), "a private folder on this machine");
  const auto tcp = worker_env_from(env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.7"},
                                        {"MASTER_PORT", "29400"}}));
  ASSERT_TRUE(tcp);
  EXPECT_EQ(tcp->store_dir, "");
  EXPECT_EQ(meeting_place(*tcp), "10.0.0.7:29400");
}

TEST(Workers, OneProcessWhenNoLauncherStartedIt) {
  EXPECT_FALSE(worker_env_from(env({})));
  EXPECT_FALSE(worker_env_from(env({{"WORLD_SIZE", "1"}, {"RANK", "0"}})));
  EXPECT_FALSE(worker_env_from(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}})));  // a one-task job
}

TEST(Workers, ReadsTorchrunsVariables) {
  const auto e = worker_env_from(env({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"},
                                      {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "10.0.0.7"},
                                      {"MASTER_PORT", "29400"}, {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                                      {"TORCHELASTIC_RESTART_COUNT", "2"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 3);
  EXPECT_EQ(e->world_size, 4);
  EXPECT_EQ(e->local_rank, 1);
  EXPECT_EQ(e->local_world_size, 2);
  EXPECT_EQ(e->master_addr, "10.0.0.7");
  EXPECT_EQ(e->master_port, 29400);
  EXPECT_EQ(e->launcher, "torchrun");
  EXPECT_TRUE(e->launcher_serves_store);
  EXPECT_EQ(e->attempt, 2);
}

TEST(Workers, ReadsSlurmsVariables) {
  const auto e = worker_env_from(env({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"},
                                      {"SLURM_NTASKS_PER_NODE", "2(x2)"}, {"SLURM_STEP_NODELIST", "gpu[07-08]"},
                                      {"SLURM_JOB_ID", "123456"}}));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->rank, 1);
  EXPECT_EQ(e->world_size, 4);
  EXPECT_EQ(e->local_world_size, 2);
  EXPECT_EQ(e->master_addr, "gpu07");
  EXPECT_EQ(e->master_port, 20000 + 3456);
  EXPECT_EQ(e->launcher, "slurm");
  EXPECT_FALSE(e->launcher_serves_store);
}

TEST(Workers, FirstHostOfASlurmNodeList) {
  EXPECT_EQ(first_slurm_host("node1"), "node1");
  EXPECT_EQ(first_slurm_host("node[07-09,12],gpu3"), "node07");
  EXPECT_EQ(first_slurm_host("a1,b2"), "a1");
  EXPECT_EQ(first_slurm_host("rack2-n[3,5]"), "rack2-n3");
}

TEST(Workers, MissingOrBadVariablesAreNamed) {
  try {
    worker_env_from(env({{"WORLD_SIZE", "2"}, {"RANK", "0"}}));
    FAIL() << "a missing MASTER_ADDR must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("MASTER_ADDR"), std::string::npos) << e.what();
  }
  try {
    worker_env_from(env({{"WORLD_SIZE", "2"}, {"RANK", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}));
    FAIL() << "a rank outside the world must be refused";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("RANK=2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(worker_env_from(env({{"WORLD_SIZE", "two"}, {"RANK", "0"}})), ConfigError);
  EXPECT_THROW(worker_env_from(env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}})), ConfigError);  // no node list
}

// Which c10d backend sums across processes: NCCL only where it can run, Gloo with the reason else.
TEST(Workers, NcclAcrossProcessesOnlyWhenEveryRankHasAGpuOfItsOwn) {
  const std::vector<std::string> one_host = {"a", "a"}, two_hosts = {"a", "b"};
  EXPECT_EQ(choose_cross_process({-1, -1}, one_host, true).reason, "c10d's Gloo");
  EXPECT_FALSE(choose_cross_process({-1, -1}, one_host, true).nccl);

  const auto nccl = choose_cross_process({0, 1}, one_host, true);
  EXPECT_TRUE(nccl.nccl);
  EXPECT_EQ(nccl.reason, "c10d's NCCL");
  EXPECT_TRUE(choose_cross_process({0, 0}, two_hosts, true).nccl);  // cuda:0 on two machines

  const auto shared = choose_cross_process({1, 0, 1}, {"a", "a", "a"}, true);
  EXPECT_FALSE(shared.nccl);
  EXPECT_NE(shared.reason.find("ranks 0 and 2 share cuda:1 on a"), std::string::npos) << shared.reason;

  const auto unbuilt = choose_cross_process({0, 1}, one_host, false);
  EXPECT_FALSE(unbuilt.nccl);
  EXPECT_NE(unbuilt.reason.find("this build has no NCCL across processes"), std::string::npos) << unbuilt.reason;

  const auto mixed = choose_cross_process({0, -1}, two_hosts, true);
  EXPECT_FALSE(mixed.nccl);
  EXPECT_NE(mixed.reason.find("rank 1 trains on the CPU"), std::string::npos) << mixed.reason;
}
