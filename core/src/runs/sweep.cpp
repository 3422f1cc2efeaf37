#include "mirror/runs/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>

#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror {

std::vector<SweepPoint> expand_sweep(const TrainConfig& base, const std::vector<SweepAxis>& axes, int tries) {
  size_t total = 1;
  for (const auto& a : axes) total *= a.values.size();
  if (axes.empty() || total == 0) throw ConfigError("a sweep needs at least one setting with values");
  if (tries < 1 || tries > 100) throw ConfigError(fmt::format("{} tries per point: give 1 to 100", tries));
  if (total * static_cast<size_t>(tries) > 1000)
    throw ConfigError(fmt::format("a sweep of {} runs is too large (at most 1000)", total * static_cast<size_t>(tries)));
  const nlohmann::json base_json = to_json(base);
  std::vector<SweepPoint> out;
  for (size_t i = 0; i < total; ++i) {
    nlohmann::json j = base_json;
    std::string label;
    nlohmann::json settings = nlohmann::json::object();
    size_t rest = i;
    size_t stride = total;
    for (const auto& a : axes) {  // the first axis varies slowest
      stride /= a.values.size();
      const nlohmann::json& v = a.values[rest / stride];
      rest %= stride;
      j[setting_pointer(a.key)] = v;
      settings[a.key] = v;
      label += fmt::format("{}{}={}", label.empty() ? "" : " ", a.name, setting_value_text(v));
    }
    SweepPoint p;
    try {
      p.config = config_from_json(j);
      p.config.validate();
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("run {} of {} ({}) cannot train: {}", i + 1, total, label, e.what()));
    }
    p.label = std::move(label);
    p.settings = std::move(settings);
    out.push_back(std::move(p));
  }
  if (tries == 1) return out;
  std::vector<SweepPoint> repeated;
  for (int t = 1; t <= tries; ++t)
    for (const SweepPoint& p : out) repeated.push_back({p.config, fmt::format("{} try {}/{}", p.label, t, tries), p.settings});
  return repeated;
}

SweepAxis scaling_axis(const std::vector<int>& logical_devices) {
  SweepAxis axis{"logical", "devices.logical", {}};
  for (int n : logical_devices) axis.values.emplace_back(n);
  return axis;
}

std::vector<SweepPoint> scaling_study_points(TrainConfig base, const ScalingStudyOptions& options) {
  if (!options.epochs_chosen && base.max_steps == 0) base.epochs = 1;
  std::vector<SweepAxis> axes = options.other_axes;
  axes.push_back(scaling_axis(options.logical_devices));
  return expand_sweep(base, axes, options.tries > 0 ? options.tries : kScalingTries);
}

std::string new_sweep_id() {
  // Milliseconds too: a lesson run again at once (its first run failing fast) is a new sweep.
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return fmt::format("sw-{}-{:03}", when, ms);
}

namespace {
std::string dataset_key(const TrainConfig& c) { return to_json(c)["dataset"].dump(); }
}  // namespace

Sweep::Sweep(std::vector<SweepPoint> points, SweepOptions options)
    : points_(std::move(points)), options_(std::move(options)) {
  if (options_.id.empty()) options_.id = new_sweep_id();
}

std::optional<RunPlan> Sweep::next() {
  if (next_ >= points_.size()) return std::nullopt;
  const size_t i = next_++;
  const SweepPoint& p = points_[i];
  RunPlan plan;
  plan.config = p.config;
  plan.dir = new_run_dir(options_.root, fmt::format("sweep-{}", i + 1));
  plan.meta = RunMeta{p.label, {options_.id}, {}};
  plan.extra = nlohmann::json{{"sweep", {{"id", options_.id}, {"index", i + 1}, {"of", points_.size()},
                                         {"label", p.label}, {"scaling", options_.scaling}, {"settings", p.settings}}}};
  if (!options_.lesson.empty()) plan.extra["sweep"]["lesson"] = options_.lesson;
  dirs_.push_back(plan.dir);
  return plan;
}

std::shared_ptr<const Dataset> Sweep::dataset_for(const TrainConfig& config) {
  const std::string key = dataset_key(config);
  std::lock_guard lock(datasets_mutex_);
  auto& data = datasets_[key];
  if (!data) data = load_dataset(config.dataset);  // under the lock: two runs never load the same set twice
  return data;
}

void Sweep::provide_dataset(const TrainConfig& config, std::shared_ptr<const Dataset> dataset) {
  std::lock_guard lock(datasets_mutex_);
  datasets_[dataset_key(config)] = std::move(dataset);
}

}  // namespace mirror
