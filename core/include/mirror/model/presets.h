#pragma once
// Named, ready-to-train configurations. The built-in ones are the JSON files of
// resources/presets/, embedded at build time: a model in the --model-file format plus the
// training settings below, so a teacher can copy one, edit it and load its model with --model-file.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/model/layer_spec.h"

namespace mirror {

// The preset a run starts from when none is named (the command line's --preset, the window's first
// start where its data is installed).
inline constexpr const char* kDefaultPreset = "fashion-cnn";

struct Preset {
  std::string name;
  std::string description;
  ModelSpec model;
  std::string dataset;     // default dataset
  int64_t num_words = 0;   // Keras text datasets: load_data's num_words (0: None)
  std::string optimizer;   // default optimizer name
  double learning_rate = 0;
  int64_t batch_size = 32;
  int epochs = 1;
  int logical_devices = 1;
  // Train on cuda:0 (split into `logical_devices`) when a GPU is usable, as the tutorial does;
  // on the CPU otherwise.
  bool prefer_gpu = false;
  // The command line's spellings ("cosine:decay_steps=2000", "val_loss:patience=3"); empty: none.
  std::string lr_schedule;
  int64_t warmup_steps = 0;
  std::string reduce_lr_on_plateau;
  std::string early_stopping;
};

// A preset from its JSON document; `source` names it in errors. Throws ConfigError naming the
// source and the problem.
Preset preset_from_json(const nlohmann::json& j, const std::string& source);

// All built-in presets, in display order. Pure.
const std::vector<Preset>& presets();
// Throws ConfigError listing the known names when `name` is unknown.
const Preset& find_preset(const std::string& name);

}  // namespace mirror
