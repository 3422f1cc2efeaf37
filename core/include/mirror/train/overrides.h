#pragma once
// Settings given on top of a base config (a preset's, a recorded run's): the command line's flags
// fill one of these, and `apply` is the one place that changes a config with them. Every field left
// unset keeps the base's value, so each default lives once, in core (TrainConfig's, the preset's),
// and a front end never restates it. Plain data, no torch.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "mirror/train/config.h"

namespace mirror {

struct ConfigOverrides {
  // The data
  std::optional<std::string> dataset;       // a dataset's name (mirrortrain datasets)
  std::optional<std::string> data_dir;
  std::optional<uint64_t> seed;             // the run's seed, and the data's (shuffles, synthetic sets)
  std::optional<int64_t> train_size, val_size;   // synthetic sets
  std::optional<int64_t> num_words, skip_top, maxlen, sequence_length, min_wires_per_topic;
  std::optional<double> validation_split;   // your own data
  std::optional<std::string> image_size;    // "HEIGHTxWIDTH" or one size for both
  std::optional<std::string> color_mode, label_column;
  std::optional<bool> crop_to_aspect_ratio, follow_links;
  // Training
  std::optional<int> epochs;
  std::optional<int64_t> batch_size, max_steps, checkpoint_every;
  std::optional<std::string> optimizer;     // another optimizer starts from its own defaults
  std::optional<double> lr, momentum, clipnorm, global_clipnorm, clipvalue;
  std::optional<bool> nesterov;
  std::optional<std::string> lr_schedule, early_stopping, plateau;  // the command line's spellings
  std::optional<int64_t> warmup_steps, scale_lr_with_batch;
  // Devices and the strategy
  std::optional<std::string> devices;
  std::optional<int> logical;
  std::optional<int64_t> memory_limit_mib;
  std::optional<std::string> communicator, cuda_graphs;
  std::optional<std::string> sparse_exchange;  // "on" or "off"
  std::optional<std::string> backward_overlap;  // "on" or "off" (--overlap)
  std::optional<std::string> precision;         // "float32" or "mixed-bf16" (model/precision.h)
  std::optional<std::string> link;          // a simulated link (the what-if), as parse_link reads it
  std::optional<int> sync_every, threads, top_k;
  std::optional<bool> deterministic;
};

// `base` with every set override applied, validated. Throws ConfigError naming the first value
// that cannot be applied (an unknown communicator, a malformed schedule, a learning rate <= 0) or
// what makes the result invalid.
TrainConfig apply(const ConfigOverrides& overrides, TrainConfig base);

// "HEIGHTxWIDTH" or one number for both, each 1..4096. Throws ConfigError saying how to write it.
std::pair<int64_t, int64_t> parse_image_size(const std::string& text);

}  // namespace mirror
