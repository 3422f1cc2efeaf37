// What a recorded run's config says, read for people: its settings as flat readable values
// ("optimizer.learning_rate" -> "0.01"), the keys where runs differ, its replicas and devices.
// Tested by tests/core/runs/test_tensorboard.cpp and tests/core/runs/test_compare.cpp.
#include "mirror/runs/run_reader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "mirror/optim/schedule.h"
#include "mirror/strategy/link_model.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"

namespace mirror {

namespace {
// A schedule, plateau rule or early stopping as one readable cell ("cosine(decay_steps=2000,
// alpha=0.1) after 100 warmup steps", "off").
std::string readable_callback(const std::string& key, const nlohmann::json& v) {
  try {
    if (key == "lr_schedule") return lr_schedule_from_json(v).describe();
    if (key == "reduce_lr_on_plateau") {
      const PlateauOptions o = plateau_from_json(v);
      return o.enabled ? fmt::format("{}: x{} after {}, min {}", o.watch.monitor, o.factor, counted(o.patience, "epoch"), o.min_lr)
                       : "off";
    }
    const EarlyStoppingOptions o = early_stopping_from_json(v);
    return o.enabled ? fmt::format("{}: patience {}{}", o.watch.monitor, o.patience,
                                   o.restore_best ? ", restore best" : "")
                     : "off";
  } catch (const ConfigError&) {
    return v.dump();
  }
}

// The simulated link as one readable value ("10gbe: 5 µs latency, 1.25 GB/s"), not its six
// recorded figures; "none" when the run had none.
std::string readable_link(const nlohmann::json& v) {
  if (v.is_null()) return "none";
  try {
    LinkSpec link;
    if (v.is_string()) {
      link = parse_link(v.get<std::string>());
    } else if (v.is_object() && (v.contains("latency_s") || v.contains("bandwidth_bytes_per_s"))) {
      link.name = json_string(v, "name", "custom");
      link.latency_s = json_number(v, "latency_s");
      const auto bandwidth = v.find("bandwidth_bytes_per_s");  // absent or null: unlimited
      link.bandwidth_bytes_per_s =
          bandwidth == v.end() || bandwidth->is_null() ? LinkSpec::kUnlimited : json_number(v, "bandwidth_bytes_per_s");
    } else if (v.is_object() && v.contains("spec") && v.at("spec").is_string()) {
      link = parse_link(v.at("spec").get<std::string>());
    } else {
      return v.dump();
    }
    return link.describe();
  } catch (const std::exception&) {
    return v.dump();
  }
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (prefix.empty() && k == "model") {  // the whole layer list counts as one value
        out["model"] = v.dump();
        continue;
      }
      if (prefix.empty() && (k == "lr_schedule" || k == "reduce_lr_on_plateau" || k == "early_stopping")) {
        out[k] = readable_callback(k, v);  // one readable value, not a dozen numbers
        continue;
      }
      if (prefix.empty() && k == "simulated_link") {
        out[k] = readable_link(v);
        continue;
      }
      flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    }
  } else {
    out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
  }
}

std::map<std::string, std::string> flat_config(const RunRecord& r) {
  std::map<std::string, std::string> out;
  if (r.run.contains("config")) flatten(r.run.at("config"), "", out);
  return out;
}
}  // namespace

std::vector<std::string> differing_config_keys(const std::vector<RunRecord>& runs) {
  std::vector<std::map<std::string, std::string>> flat;
  std::set<std::string> keys;
  for (const auto& r : runs) {
    flat.push_back(flat_config(r));
    for (const auto& [k, v] : flat.back()) keys.insert(k);
  }
  std::vector<std::string> out;
  for (const auto& k : keys) {
    std::set<std::string> values;
    for (const auto& f : flat) values.insert(f.count(k) ? f.at(k) : std::string("-"));
    if (values.size() > 1) out.push_back(k);
  }
  return out;
}

int replica_count(const RunRecord& run) {
  if (const auto it = run.run.find("devices"); it != run.run.end() && it->is_array() && !it->empty())
    return static_cast<int>(it->size());
  const std::string logical = config_value(run, "devices.logical");
  try {
    return std::max(1, std::stoi(logical));
  } catch (const std::exception&) {
    return 1;
  }
}

std::vector<std::string> physical_devices(const RunRecord& run) {
  std::set<std::string> physical;
  if (const auto it = run.run.find("devices"); it != run.run.end() && it->is_array())
    for (const auto& d : *it)
      if (d.is_string()) physical.insert(d.get<std::string>().substr(0, d.get<std::string>().find("/logical")));
  return {physical.begin(), physical.end()};
}

int physical_device_count(const RunRecord& run) {
  return std::max<int>(1, static_cast<int>(physical_devices(run).size()));
}

std::string config_value(const RunRecord& run, const std::string& key) {
  const auto flat = flat_config(run);
  const auto it = flat.find(key);
  return it == flat.end() ? "-" : it->second;
}


}  // namespace mirror
