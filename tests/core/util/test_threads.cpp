// How many intra-op threads each replica gets: the cores shared out, and no more threads than
// its shard of the batch can keep busy.
#include <gtest/gtest.h>

#include <string>

#include "mirror/util/threads.h"

using namespace mirror;

TEST(Threads, CoresAreSharedOutAmongReplicas) {
  EXPECT_EQ(intra_op_threads_per_replica(/*replicas=*/1, /*cores=*/8), 8);
  EXPECT_EQ(intra_op_threads_per_replica(3, 8), 2);
  EXPECT_EQ(intra_op_threads_per_replica(16, 8), 1);  // never none
  EXPECT_EQ(intra_op_threads_per_replica(0, 2), 2);   // no replicas counts as one
}

TEST(Threads, ASmallShardGetsOneThreadPerItsWorthOfExamples) {
  std::string why;
  // The tutorial's batch 32 on one replica of a 2-core machine: one thread (measured faster).
  EXPECT_EQ(intra_op_threads_per_replica(1, 2, 0, /*shard_examples=*/32, &why), 1);
  EXPECT_NE(why.find("32 examples a replica: one thread per 128"), std::string::npos) << why;
  // Batch 256: both cores.
  EXPECT_EQ(intra_op_threads_per_replica(1, 2, 0, 256, &why), 2);
  EXPECT_EQ(why, "all 2 cores");
  // Batch 128: one thread (measured faster than two).
  EXPECT_EQ(intra_op_threads_per_replica(1, 2, 0, 128), 1);
  // On 16 cores: 520 examples keep 4 threads busy, 4096 all 16.
  EXPECT_EQ(intra_op_threads_per_replica(1, 16, 0, 520), 4);
  EXPECT_EQ(intra_op_threads_per_replica(1, 16, 0, 4096), 16);
  // The share of the cores is still the ceiling; an unknown shard (0) leaves it at that.
  EXPECT_EQ(intra_op_threads_per_replica(4, 16, 0, 4096, &why), 4);
  EXPECT_EQ(why, "16 cores shared by 4 replicas");
  EXPECT_EQ(intra_op_threads_per_replica(1, 4, 0, 0), 4);
  // Where the share is one thread already, the shard changes nothing and is not given as the reason.
  EXPECT_EQ(intra_op_threads_per_replica(2, 2, 0, 16, &why), 1);
  EXPECT_EQ(why, "2 cores shared by 2 replicas");
}

TEST(Threads, ARequestedCountIsTakenAsItIs) {
  std::string why;
  EXPECT_EQ(intra_op_threads_per_replica(1, 2, /*requested=*/3, /*shard_examples=*/8, &why), 3);
  EXPECT_EQ(why, "as requested");
}

TEST(Threads, ARequestBeyondTwiceTheCoresIsCappedAndSaysSo) {
  std::string why;
  EXPECT_EQ(intra_op_threads_per_replica(1, /*cores=*/2, /*requested=*/1024, 0, &why), 4);
  EXPECT_EQ(why, "1024 requested, capped at 4: 2 a core on 2 cores; more threads only wait for each other");
  EXPECT_EQ(intra_op_threads_per_replica(2, 2, /*requested=*/4, 0, &why), 4);  // the cap itself is allowed
  EXPECT_EQ(why, "as requested");
}
