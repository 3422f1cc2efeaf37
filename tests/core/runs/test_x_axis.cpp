// The x axes by name: one list for lessons, `mirrorbench --x-axis` and the compare view.
#include <gtest/gtest.h>

#include "mirror/runs/lesson.h"
#include "mirror/runs/x_axis.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;

TEST(XAxis, EveryAxisIsFoundByItsNameAndNoOtherNameIsAnAxis) {
  for (const XAxisInfo& x : kXAxes) {
    ASSERT_TRUE(x_axis_named(x.name)) << x.name;
    EXPECT_EQ(*x_axis_named(x.name), x.axis);
    EXPECT_STREQ(x_axis_name(x.axis), x.name);
  }
  EXPECT_FALSE(x_axis_named("time (s)"));
  EXPECT_FALSE(x_axis_named(""));
  EXPECT_FALSE(x_axis_named("Step"));
  // The names and titles the three lists had, in their order (a lesson's file and saved
  // comparisons name them; the chooser's index is the enum's value).
  EXPECT_EQ(x_axis_names(), "step, epoch, samples, time or wall");
  EXPECT_EQ(static_cast<int>(*x_axis_named("wall")), 4);
  EXPECT_STREQ(x_axis_title(XAxis::kSamples), "samples seen");
  EXPECT_STREQ(x_axis_title(XAxis::kTime), "training time (s)");
  EXPECT_STREQ(x_axis_title(XAxis::kWall), "wall time (s)");
}

TEST(XAxis, ALessonOnAnAxisNoChartHasIsRefusedNamingTheAxes) {
  const nlohmann::json lesson = nlohmann::json::parse(R"({"title": "t", "text": ["p"], "x_axis": "minutes",
      "runs": [{"label": "a", "preset": "spirals-mlp"}]})");
  const std::string m = mirror::testing::error_of<ConfigError>([&] { lesson_from_json(lesson, "t", "test"); });
  EXPECT_NE(m.find("x_axis 'minutes' is not one of step, epoch, samples, time or wall"), std::string::npos) << m;
  const nlohmann::json on_wall = nlohmann::json::parse(R"({"title": "t", "text": ["p"], "x_axis": "wall",
      "runs": [{"label": "a", "preset": "spirals-mlp"}]})");
  EXPECT_EQ(lesson_from_json(on_wall, "t", "test").x_axis, "wall");
}
