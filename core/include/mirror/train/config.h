#pragma once
// Everything that defines a training run, as plain data (no torch: the window includes it).

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

#include "mirror/data/dataset_options.h"
#include "mirror/model/layer_spec.h"
#include "mirror/optim/optimizer_config.h"
#include "mirror/optim/schedule.h"
#include "mirror/strategy/device.h"
#include "mirror/strategy/mirrored_options.h"

namespace mirror {

// How often a run saves checkpoints (where to is the caller's: see Trainer::save_checkpoints).
struct CheckpointOptions {
  int64_t every_steps = 0;   // also every N steps; 0: at epoch ends (and on stop) only
  int keep_last = 3;         // step checkpoints kept; best.pt (best validation accuracy) is kept apart
};

struct TrainConfig {
  std::string preset;          // informational: the preset the config started from, if any
  ModelSpec model;
  DatasetOptions dataset;
  OptimizerConfig optimizer;
  int64_t batch_size = 32;     // global batch, split across replicas
  int epochs = 1;
  int64_t max_steps = 0;       // stop after this many steps in total; 0: no limit
  int64_t eval_batch_size = 0; // 0: max(batch_size, 256)
  DeviceRequest devices;
  uint64_t seed = 42;
  // A Keras 3 .keras file whose trained weights the run starts from (its optimizer state is not
  // taken); empty: weights drawn from `seed`. A resumed run takes its checkpoint's instead.
  std::string initial_weights;
  MirroredOptions strategy;
  CheckpointOptions checkpoints;
  LrSchedule schedule;                  // the rate over the run (constant by default)
  PlateauOptions plateau;               // ReduceLROnPlateau (off by default)
  EarlyStoppingOptions early_stopping;  // off by default

  // Throws ConfigError naming the first impossible value (batch size, epochs, ...).
  void validate() const;
};

// Starts from a preset: its model, dataset, optimizer, learning rate, batch size, epochs and
// logical-device count. Throws ConfigError for an unknown preset.
TrainConfig config_from_preset(const std::string& preset);

nlohmann::json to_json(const TrainConfig& config);
// The inverse of to_json, for resuming a recorded run. Throws ConfigError on a malformed document.
TrainConfig config_from_json(const nlohmann::json& j);

}  // namespace mirror
