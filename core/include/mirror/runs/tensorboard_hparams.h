#pragma once
// A run as a session of TensorBoard's HParams dashboard: its settings (hyperparameters) when it
// starts and its status when it ends, as summaries of the hparams plugin, so that `tensorboard
// --logdir` over a sweep's folder lists its runs with their settings beside their final metrics
// (the train/ and validation/ scalars under each run are found by the dashboard itself).

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <variant>
#include <vector>

namespace mirror {

struct HParam {
  std::string name;                              // a dotted key of run.json's config: "optimizer.learning_rate"
  std::variant<double, std::string, bool> value;
};

// What the dashboard shows of a run: its model, dataset, optimizer, learning rate, batch size,
// epochs, devices, logical devices and seed (keys of `config`, to_json(TrainConfig)'s document),
// then every setting a sweep varied (`sweep_settings`: {dotted key: value}, as run.json's
// sweep.settings), each once. Numbers, words and booleans as they are; anything else as its JSON text.
std::vector<HParam> run_hparams(const nlohmann::json& config, const nlohmann::json& sweep_settings);

// The framed Event records (tensorboard.h's format): the session's start (the plugin's
// SessionStartInfo: `hparams`, started at `wall_time`) and its end (SessionEndInfo: `status` in
// TensorBoard's numbers, 1 success, 2 failure, 0 unknown). Pure.
std::string hparams_start_record(double wall_time, const std::vector<HParam>& hparams);
std::string hparams_end_record(double wall_time, int status);

}  // namespace mirror
