#pragma once
// A config changed by name: "lr=0.01,0.1" as a sweep writes it, {"logical": 2} as a lesson's run
// sets it. The names are the short ones people type (lr, batch, logical, ...) or the dotted keys of
// a run's config.json. Plain data, no torch.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "mirror/train/config.h"

namespace mirror {

// One axis of a grid: a config key (as to_json(TrainConfig) spells it, dotted: "optimizer.learning_rate")
// and its values. `name` is what the person wrote ("lr"), used in labels.
struct SweepAxis {
  std::string name;
  std::string key;
  std::vector<nlohmann::json> values;
};

// Parses "KEY=V1,V2,..." (values separated by commas, spaces or both: "lr=0.01 0.1"). KEY is a dotted key of `base`'s config (as to_json writes it:
// "optimizer.beta1" exists for Adam-family optimizers only) or one of the short names lr, batch,
// logical, epochs, optimizer, momentum, seed. Values are numbers, true/false or words, of the
// key's type. Throws ConfigError for a malformed spec, an unknown key or an empty value list.
SweepAxis parse_sweep_axis(const std::string& spec, const TrainConfig& base = TrainConfig{});

// `base` with some settings changed: {"logical": 2, "optimizer.learning_rate": 0.04}, each named
// as a sweep axis is (a short name or a dotted key) with a value of the setting's type. Throws
// ConfigError naming the first unknown setting or wrong value, or what makes the result invalid.
TrainConfig with_settings(const TrainConfig& base, const nlohmann::json& settings);

// Where a dotted key ("optimizer.learning_rate") lies in to_json(TrainConfig).
nlohmann::json::json_pointer setting_pointer(const std::string& dotted);
// A value as a label shows it: a word bare, anything else as JSON ("adam", "0.01").
std::string setting_value_text(const nlohmann::json& v);

}  // namespace mirror
