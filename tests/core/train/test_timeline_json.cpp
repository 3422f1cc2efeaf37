// A step's timeline as timeline.jsonl and --json step events carry it, and back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mirror/train/events_json.h"
#include "mirror/util/error.h"

using namespace mirror;

namespace {
StepTimeline two_processes() {
  StepTimeline t;
  t.global_step = 41;
  t.replicas = {ReplicaMarks{0, 0, 7, 0.0, 0.012, 0.5, 1.25, 3.5, 3.75},
                ReplicaMarks{1, 1, 6, -2.0004, -1.9, -1.2, -0.6, 3.4996, 3.8}};
  t.processes = {ProcessSpans{0, 0, 1.3, 3.4, 3.9}, ProcessSpans{1, 12.5, 1.0, 3.4, 3.85}};
  t.idle = {IdleSpan{IdleKind::kPace, 0, -40.0, -0.5}, IdleSpan{IdleKind::kEvaluation, 0, -90.0, -41.0}};
  return t;
}

// The error timeline_from_json gives for `text`, or "" when it takes it.
std::string refusal(const std::string& text) {
  try {
    timeline_from_json(nlohmann::json::parse(text));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(TimelineJson, RoundTripsToTheMicrosecond) {
  const StepTimeline t = two_processes();
  const nlohmann::json j = to_json(t);
  const StepTimeline back = timeline_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.global_step, 41);
  ASSERT_EQ(back.replicas.size(), 2u);
  EXPECT_EQ(back.replicas[1].replica, 1);
  EXPECT_EQ(back.replicas[1].process, 1);
  EXPECT_EQ(back.replicas[1].shard_size, 6);
  EXPECT_DOUBLE_EQ(back.replicas[1].started, -2.0);  // rounded to the microsecond
  EXPECT_DOUBLE_EQ(back.replicas[1].reduced, 3.5);
  EXPECT_DOUBLE_EQ(back.replicas[0].copied, 0.012);
  ASSERT_EQ(back.processes.size(), 2u);
  EXPECT_DOUBLE_EQ(back.processes[1].offset_ms, 12.5);
  EXPECT_DOUBLE_EQ(back.processes[1].step_end, 3.85);
  ASSERT_EQ(back.idle.size(), 2u);
  EXPECT_EQ(back.idle[1].kind, IdleKind::kEvaluation);
  EXPECT_DOUBLE_EQ(back.idle[0].begin, -40.0);
  EXPECT_FALSE(back.simulated_link);
  EXPECT_EQ(to_json(back), j);  // and again the same line
  // Compact: numbers in arrays, no field names per replica.
  EXPECT_LT(j.dump().size(), 260u) << j.dump();
}

TEST(TimelineJson, ASimulatedLinkIsKept) {
  StepTimeline t = two_processes();
  t.simulated_link = true;
  t.simulated_allreduce_ms = 2.5;
  const StepTimeline back = timeline_from_json(to_json(t));
  EXPECT_TRUE(back.simulated_link);
  EXPECT_DOUBLE_EQ(back.simulated_allreduce_ms, 2.5);
}

TEST(TimelineJson, StepEventsCarryTheirTimeline) {
  StepMetrics m;
  m.global_step = 42;
  EXPECT_FALSE(to_json(m).contains("timeline"));
  m.timeline = two_processes();
  m.pace_seconds = 1.5;
  const auto j = to_json(m);
  ASSERT_TRUE(j.contains("timeline"));
  EXPECT_EQ(timeline_from_json(j.at("timeline")).global_step, 41);  // several processes: the step before
  EXPECT_EQ(j.at("pace_seconds"), 1.5);
  EXPECT_FALSE(j.contains("pause_seconds"));
}

TEST(TimelineJson, AMalformedLineIsRefusedNamingTheField) {
  EXPECT_EQ(refusal(R"({"step":1,"replicas":[[0,0,8,0,1,2,3,4,5]],"processes":[[0,0,0,0,6]]})"), "");
  EXPECT_EQ(refusal("[1,2]"), "timeline: not a JSON object");
  EXPECT_EQ(refusal(R"({"replicas":[]})"), "timeline: step is missing or not a number");
  EXPECT_EQ(refusal(R"({"step":-3})"), "timeline: step must be a whole number from 0 to 1125899906842624");
  EXPECT_EQ(refusal(R"({"step":1,"replicas":{"a":1}})"), "timeline: replicas is not an array");
  EXPECT_EQ(refusal(R"({"step":1,"replicas":[[0,0,8,0,1,2,3,4]]})"), "timeline: replicas[0] has 8 values, expected 9");
  EXPECT_EQ(refusal(R"({"step":1,"replicas":[[0,0,8,0,1,2,3,4,5],[1,0,8,0,1,"x",3,4,5]]})"),
            "timeline: replicas[1] holds a value that is not a number");
  EXPECT_EQ(refusal(R"({"step":1,"replicas":[[0.5,0,8,0,1,2,3,4,5]]})"),
            "timeline: replicas[0]'s replica must be a whole number from 0 to 1048576");
  EXPECT_EQ(refusal(R"({"step":1,"replicas":[[0,0,8,0,1,2,3,2,5]]})"),
            "timeline: replicas[0] has its moments out of order (started, copied, forward done, gradients ready, "
            "reduced, updated)");
  EXPECT_EQ(refusal(R"({"step":1,"processes":[[0,0,5,4,6]]})"), "timeline: processes[0] ends its exchange before it begins");
  EXPECT_EQ(refusal(R"({"step":1,"idle":[["nap",0,-5,-1]]})"),
            "timeline: idle[0] has an unknown kind (pace, pause or evaluation)");
  EXPECT_EQ(refusal(R"({"step":1,"idle":[["pace",0,-1,-5]]})"), "timeline: idle[0] ends before it begins");
  EXPECT_EQ(refusal(R"({"step":1,"simulated_allreduce_ms":-1})"),
            "timeline: simulated_allreduce_ms must be a number of milliseconds, 0 or more");
  // Sizes are guarded before anything is built from them.
  nlohmann::json many = {{"step", 1}, {"idle", nlohmann::json::array()}};
  for (int i = 0; i < 1025; ++i) many["idle"].push_back({"pace", 0, -1, 0});
  EXPECT_EQ(refusal(many.dump()), "timeline: idle has 1025 entries, more than 1024");
}
