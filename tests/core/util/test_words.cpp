// Counting in words: one of a thing is singular.
#include <gtest/gtest.h>

#include "mirror/util/words.h"

using namespace mirror;

TEST(Words, OneIsSingularEverythingElsePlural) {
  EXPECT_EQ(counted(1, "replica"), "1 replica");
  EXPECT_EQ(counted(2, "replica"), "2 replicas");
  EXPECT_EQ(counted(0, "run"), "0 runs");
  EXPECT_EQ(counted(3, "physical device"), "3 physical devices");
  EXPECT_EQ(counted(2, "process", "processes"), "2 processes");
}
