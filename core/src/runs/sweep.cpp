#include "mirror/runs/sweep.h"

#include <fmt/format.h>

#include <map>

#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/run_writer.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
const std::map<std::string, std::string>& short_names() {
  static const std::map<std::string, std::string> names = {
      {"lr", "optimizer.learning_rate"}, {"batch", "batch_size"}, {"logical", "devices.logical"},
      {"epochs", "epochs"},              {"optimizer", "optimizer.name"}, {"momentum", "optimizer.momentum"},
      {"seed", "seed"}};
  return names;
}

nlohmann::json::json_pointer pointer(const std::string& dotted) {
  std::string p = "/";
  for (const char c : dotted) p.push_back(c == '.' ? '/' : c);
  return nlohmann::json::json_pointer(p);
}

nlohmann::json parse_value(const std::string& text) {
  auto v = nlohmann::json::parse(text, nullptr, false);
  if (v.is_discarded() || v.is_structured()) return text;  // a word: "adam"
  return v;
}

std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  const size_t e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}
}  // namespace

SweepAxis parse_sweep_axis(const std::string& spec, const TrainConfig& base) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos)
    throw ConfigError(fmt::format("sweep axis '{}': expected KEY=V1,V2,... (e.g. lr=0.01,0.1)", spec));
  SweepAxis axis;
  axis.name = trim(spec.substr(0, eq));
  const auto alias = short_names().find(axis.name);
  axis.key = alias == short_names().end() ? axis.name : alias->second;
  const nlohmann::json reference = to_json(base);
  if (axis.key.empty() || axis.key == "model" || !reference.contains(pointer(axis.key)) ||
      reference.at(pointer(axis.key)).is_structured()) {
    std::string known;
    for (const auto& [k, v] : short_names()) known += (known.empty() ? "" : ", ") + k;
    throw ConfigError(fmt::format("sweep axis '{}': unknown setting '{}' (use {} or a dotted config key such as "
                                  "optimizer.learning_rate)",
                                  spec, axis.name, known));
  }
  const std::string list = spec.substr(eq + 1);
  size_t begin = 0;
  while (begin <= list.size()) {
    size_t comma = list.find(',', begin);
    if (comma == std::string::npos) comma = list.size();
    const std::string item = trim(list.substr(begin, comma - begin));
    if (!item.empty()) {
      nlohmann::json v = parse_value(item);
      const nlohmann::json& like = reference.at(pointer(axis.key));
      if (like.is_number() != v.is_number() || like.is_boolean() != v.is_boolean() ||
          (like.is_number_integer() && !v.is_number_integer()))
        throw ConfigError(fmt::format("sweep axis '{}': '{}' is not a valid value for {} (expected {})", spec, item,
                                      axis.key, like.is_number_integer() ? "a whole number" : like.is_number() ? "a number" : like.is_boolean() ? "true or false" : "a word"));
      axis.values.push_back(std::move(v));
    }
    begin = comma + 1;
  }
  if (axis.values.empty()) throw ConfigError(fmt::format("sweep axis '{}': no values", spec));
  return axis;
}

std::vector<SweepPoint> expand_sweep(const TrainConfig& base, const std::vector<SweepAxis>& axes) {
  size_t total = 1;
  for (const auto& a : axes) total *= a.values.size();
  if (axes.empty() || total == 0) throw ConfigError("a sweep needs at least one axis with values");
  if (total > 1000) throw ConfigError(fmt::format("a sweep of {} runs is too large (at most 1000)", total));
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
      throw ConfigError(fmt::format("sweep run {} of {} ({}): {}", i + 1, total, label, e.what()));
    }
    p.label = std::move(label);
    out.push_back(std::move(p));
  }
  return out;
}

SweepAxis scaling_axis(const std::vector<int>& logical_devices) {
  SweepAxis axis{"logical", "devices.logical", {}};
  for (int n : logical_devices) axis.values.emplace_back(n);
  return axis;
}

std::string new_sweep_id() { return "sw-" + utc_now("%Y%m%d-%H%M%S"); }

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
