#pragma once
// The x axes a run's curves are drawn on, under the names a lesson's "x_axis", `mirrorbench
// --x-axis` and the compare view's chooser use. The one list: a new axis is added here.
// Plain values, no torch; thread-safe.

#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace mirror {

enum class XAxis { kStep, kEpoch, kSamples, kTime, kWall };

struct XAxisInfo {
  XAxis axis;
  const char* name;   // as lessons and the command line spell it: "samples"
  const char* title;  // as a chart's axis is titled: "samples seen"
};

// Every axis, in the order choosers list them.
inline constexpr XAxisInfo kXAxes[] = {
    {XAxis::kStep, "step", "step"},
    {XAxis::kEpoch, "epoch", "epoch"},
    {XAxis::kSamples, "samples", "samples seen"},
    {XAxis::kTime, "time", "training time (s)"},
    {XAxis::kWall, "wall", "wall time (s)"},
};

// The axis's entry in kXAxes.
constexpr const XAxisInfo& x_axis_info(XAxis axis) {
  for (const XAxisInfo& x : kXAxes)
    if (x.axis == axis) return x;
  return kXAxes[0];
}
constexpr const char* x_axis_name(XAxis axis) { return x_axis_info(axis).name; }
constexpr const char* x_axis_title(XAxis axis) { return x_axis_info(axis).title; }

// The axis called `name` ("wall"); nullopt for a name no axis has.
constexpr std::optional<XAxis> x_axis_named(std::string_view name) {
  for (const XAxisInfo& x : kXAxes)
    if (name == x.name) return x.axis;
  return std::nullopt;
}

// The names for a message or a help text: "step, epoch, samples, time or wall".
inline std::string x_axis_names() {
  std::string out;
  constexpr size_t n = std::size(kXAxes);
  for (size_t i = 0; i < n; ++i) out += std::string(i == 0 ? "" : i + 1 == n ? " or " : ", ") + kXAxes[i].name;
  return out;
}

}  // namespace mirror
