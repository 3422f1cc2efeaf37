#pragma once
// Sweeps: a grid of settings (learning rate x batch size x logical devices, say) expanded into
// one config per combination, each trained as a normal run; and the scaling study, the grid over
// logical devices alone.

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

// Parses "KEY=V1,V2,...". KEY is a dotted key of `base`'s config (as to_json writes it:
// "optimizer.beta1" exists for Adam-family optimizers only) or one of the short names lr, batch,
// logical, epochs, optimizer, momentum, seed. Values are numbers, true/false or words, of the
// key's type. Throws ConfigError for a malformed spec, an unknown key or an empty value list.
SweepAxis parse_sweep_axis(const std::string& spec, const TrainConfig& base = TrainConfig{});

struct SweepPoint {
  TrainConfig config;
  std::string label;  // "lr=0.01 batch=64"
};

// Every combination, the first axis varying slowest, each the base config with the axis values
// set. Throws ConfigError naming the combination when one is not a valid config (a batch smaller
// than the replica count, a negative learning rate, ...), before anything is trained.
std::vector<SweepPoint> expand_sweep(const TrainConfig& base, const std::vector<SweepAxis>& axes);

// The scaling study's grid: the same config on each of these logical-device counts.
SweepAxis scaling_axis(const std::vector<int>& logical_devices = {1, 2, 4});

// A short unique id for a new sweep ("sw-20261130-141502").
std::string new_sweep_id();

}  // namespace mirror
