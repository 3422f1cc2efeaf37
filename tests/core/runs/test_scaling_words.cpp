// The scaling study's paragraph in words a student follows; the figures stay in the details.
#include <gtest/gtest.h>

#include "mirror/runs/compare.h"

namespace scaling_words_test {

namespace {
mirror::ScalingPoint point(int replicas, double samples_per_sec, double speedup, double step_ms, double compute_ms,
                           double allreduce_ms, double other_ms) {
  mirror::ScalingPoint p;
  p.replicas = replicas;
  p.physical_devices = 1;  // logical devices on one CPU
  p.samples_per_sec = samples_per_sec;
  p.speedup = speedup;
  p.ideal_speedup = 1;
  p.efficiency = speedup;
  p.step_ms = step_ms;
  p.compute_ms = compute_ms;
  p.allreduce_ms = allreduce_ms;
  p.other_ms = other_ms;
  return p;
}
}  // namespace

TEST(ScalingWords, TheParagraphSpeaksPlainlyWhereTheDetailsUseTheJargon) {
  // The README's study: 2 replicas faster than 1 on one CPU (efficiency above 100%), 4 waiting.
  const std::vector<mirror::ScalingPoint> faster = {point(1, 3595, 1.0, 17.8, 17.0, 0, 0.5),
                                                    point(2, 8398, 2.34, 7.6, 6.5, 0.5, 0.4)};
  const std::string technical = mirror::explain_scaling(faster);
  ASSERT_NE(technical.find("intra-op threads"), std::string::npos) << technical;  // the details keep it
  const std::string plain = mirror::explain_scaling_plainly(faster);
  for (const char* jargon : {"intra-op", "load average", "median", "efficiency", "all-reduce", "samples/s"})
    EXPECT_EQ(plain.find(jargon), std::string::npos) << jargon << " in: " << plain;
  EXPECT_NE(plain.find("With 1 replica the model trained on 3595 examples a second; with 2 replicas, 8398: 2.3 times as fast"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("left part of the processor idle"), std::string::npos) << plain;

  const std::vector<mirror::ScalingPoint> slower = {point(1, 6888, 1.0, 9.3, 8.8, 0, 0.2),
                                                    point(4, 3769, 0.55, 17.0, 6.2, 5.5, 4.9)};
  const std::string waiting = mirror::explain_scaling_plainly(slower);
  EXPECT_NE(waiting.find("slower: 55% of the speed"), std::string::npos) << waiting;
  EXPECT_NE(waiting.find("wait for one another"), std::string::npos) << waiting;
  EXPECT_EQ(waiting.find("all-reduce"), std::string::npos) << waiting;
}

}  // namespace scaling_words_test
