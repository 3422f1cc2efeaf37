#include <gtest/gtest.h>

#include <numeric>

#include "mirror/strategy/shard_plan.h"
#include "mirror/util/threads.h"

using mirror::ShardPlan;

TEST(ShardPlan, EvenBatchSplitsEqually) {
  const ShardPlan plan(32, 2);
  EXPECT_EQ(plan.sizes(), (std::vector<int64_t>{16, 16}));
  EXPECT_EQ(plan.offset(1), 16);
}

TEST(ShardPlan, UnevenBatchGivesExtraExamplesToFirstShardsAndDropsNone) {
  for (int64_t batch : {1, 7, 10, 26, 31, 257}) {
    for (int replicas = 1; replicas <= 8; ++replicas) {
      const ShardPlan plan(batch, replicas);
      const auto& s = plan.sizes();
      EXPECT_EQ(std::accumulate(s.begin(), s.end(), int64_t{0}), batch) << batch << "/" << replicas;
      const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
      EXPECT_LE(*hi - *lo, 1);
      EXPECT_TRUE(std::is_sorted(s.rbegin(), s.rend()));  // larger shards first
      for (int r = 1; r < replicas; ++r) EXPECT_EQ(plan.offset(r), plan.offset(r - 1) + plan.size(r - 1));
    }
  }
  EXPECT_EQ(ShardPlan(10, 3).sizes(), (std::vector<int64_t>{4, 3, 3}));
  EXPECT_EQ(ShardPlan(26, 4).sizes(), (std::vector<int64_t>{7, 7, 6, 6}));
}

TEST(ShardPlan, BatchSmallerThanReplicasLeavesEmptyShards) {
  EXPECT_EQ(ShardPlan(2, 4).sizes(), (std::vector<int64_t>{1, 1, 0, 0}));
}

TEST(ShardPlan, RejectsImpossibleArguments) {
  EXPECT_THROW(ShardPlan(8, 0), std::invalid_argument);
  EXPECT_THROW(ShardPlan(-1, 2), std::invalid_argument);
}

TEST(ThreadBudget, ReplicasShareCoresWithoutOversubscribing) {
  EXPECT_EQ(mirror::intra_op_threads_per_replica(1, 2), 2);
  EXPECT_EQ(mirror::intra_op_threads_per_replica(2, 2), 1);
  EXPECT_EQ(mirror::intra_op_threads_per_replica(4, 2), 1);
  EXPECT_EQ(mirror::intra_op_threads_per_replica(2, 16), 8);
  EXPECT_EQ(mirror::intra_op_threads_per_replica(3, 16), 5);
  EXPECT_EQ(mirror::intra_op_threads_per_replica(2, 16, 3), 3);
}
