#include "mirror/runs/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <map>
#include <sstream>

#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"

namespace mirror {

namespace {
const std::map<std::string, std::string>& short_names() {
  static const std::map<std::string, std::string> names = {
      {"lr", "optimizer.learning_rate"}, {"batch", "batch_size"}, {"logical", "devices.logical"},
      {"epochs", "epochs"},              {"optimizer", "optimizer.name"}, {"momentum", "optimizer.momentum"},
      {"seed", "seed"},                  {"link", "simulated_link"}};
  return names;
}

nlohmann::json::json_pointer pointer(const std::string& dotted) {
  std::string p = "/";
  for (const char c : dotted) p.push_back(c == '.' ? '/' : c);
  return nlohmann::json::json_pointer(p);
}

nlohmann::json parse_value(const std::string& text) {
  try {
    auto v = parse_json_text(text, "the value", kTypedValueJson);
    if (!v.is_structured()) return v;
  } catch (const ConfigError&) {
  }
  return text;  // a word: "adam"
}

// "learning rates", for the settings a person sweeps by their short names; the name itself else.
std::string setting_in_words(const std::string& name) {
  static const std::map<std::string, std::string> words = {
      {"lr", "Learning rate"}, {"batch", "Batch size"}, {"logical", "Logical devices"}, {"epochs", "Epochs"},
      {"optimizer", "Optimizer"}, {"momentum", "Momentum"}, {"seed", "Seed"}, {"link", "Simulated link"}};
  const auto it = words.find(name);
  return it == words.end() ? name : it->second;
}

std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

namespace {
// The axis for setting `name` (a short name or a dotted key of `reference`, a config as to_json
// writes it), without values. Throws ConfigError for a setting that is not there.
SweepAxis axis_named(const std::string& name, const nlohmann::json& reference) {
  SweepAxis axis;
  axis.name = name;
  const auto alias = short_names().find(axis.name);
  axis.key = alias == short_names().end() ? axis.name : alias->second;
  if (axis.key.empty() || axis.key == "model" || !reference.contains(pointer(axis.key)) ||
      reference.at(pointer(axis.key)).is_structured()) {
    std::string known;
    for (const auto& [k, v] : short_names()) known += (known.empty() ? "" : ", ") + k;
    throw ConfigError(fmt::format("'{}' is not a setting a sweep can vary (unknown setting): use one of {}, or a "
                                  "setting as a run's config.json names it, such as optimizer.learning_rate",
                                  axis.name, known));
  }
  return axis;
}

// Throws ConfigError unless `v` has the type of `like` (the setting's current value).
void check_value_type(const SweepAxis& axis, const nlohmann::json& like, const nlohmann::json& v) {
  // A setting that is off by default (null: the simulated link) takes its text; the config reads it.
  if (like.is_null() && (v.is_string() || v.is_null())) return;
  if (like.is_number() == v.is_number() && like.is_boolean() == v.is_boolean() && like.is_string() == v.is_string() &&
      (!like.is_number_integer() || v.is_number_integer()))
    return;
  const char* expected = like.is_number_integer() ? "a whole number" : like.is_number() ? "a number"
                         : like.is_boolean()      ? "true or false" : "a word";
  throw ConfigError(fmt::format("{}: '{}' is not {}", setting_in_words(axis.name), text_of(v), expected));
}
}  // namespace

SweepAxis parse_sweep_axis(const std::string& spec, const TrainConfig& base) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos)
    throw ConfigError(fmt::format("'{}': write a setting, '=' and its values, for example lr=0.01,0.1", spec));
  const nlohmann::json reference = to_json(base);
  SweepAxis axis = axis_named(trim(spec.substr(0, eq)), reference);
  const nlohmann::json& like = reference.at(pointer(axis.key));
  // Values are separated by commas, spaces or both: "0.01,0.1", "0.01 0.1", "0.01, 0.1".
  std::string list = spec.substr(eq + 1);
  for (char& c : list)
    if (c == ',' || c == '\t') c = ' ';
  std::istringstream items(list);
  std::string item;
  while (items >> item) {
    nlohmann::json v = parse_value(item);
    check_value_type(axis, like, v);
    axis.values.push_back(std::move(v));
  }
  if (axis.values.empty())
    throw ConfigError(fmt::format("{}: no values given (separate several by commas or spaces)", setting_in_words(axis.name)));
  return axis;
}

TrainConfig with_settings(const TrainConfig& base, const nlohmann::json& settings) {
  if (!settings.is_object()) throw ConfigError(fmt::format("settings must be an object of names and values, not {}", settings.type_name()));
  nlohmann::json j = to_json(base);
  auto apply = [&j](const std::string& name, const nlohmann::json& v) {
    const SweepAxis axis = axis_named(name, j);
    check_value_type(axis, j.at(pointer(axis.key)), v);
    j[pointer(axis.key)] = v;
  };
  // The optimizer first: which of its settings exist (momentum, beta1, ...) depends on it.
  for (const auto& [name, v] : settings.items())
    if (name == "optimizer" || name == "optimizer.name") apply(name, v);
  j = to_json(config_from_json(j));
  for (const auto& [name, v] : settings.items())
    if (name != "optimizer" && name != "optimizer.name") apply(name, v);
  TrainConfig out = config_from_json(j);
  out.validate();
  return out;
}

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
    size_t rest = i;
    size_t stride = total;
    for (const auto& a : axes) {  // the first axis varies slowest
      stride /= a.values.size();
      const nlohmann::json& v = a.values[rest / stride];
      rest %= stride;
      j[pointer(a.key)] = v;
      label += fmt::format("{}{}={}", label.empty() ? "" : " ", a.name, text_of(v));
    }
    SweepPoint p;
    try {
      p.config = config_from_json(j);
      p.config.validate();
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("run {} of {} ({}) cannot train: {}", i + 1, total, label, e.what()));
    }
    p.label = std::move(label);
    out.push_back(std::move(p));
  }
  if (tries == 1) return out;
  std::vector<SweepPoint> repeated;
  for (int t = 1; t <= tries; ++t)
    for (const SweepPoint& p : out) repeated.push_back({p.config, fmt::format("{} try {}/{}", p.label, t, tries)});
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
                                         {"label", p.label}, {"scaling", options_.scaling}}}};
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
