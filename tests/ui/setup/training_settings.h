#pragma once
// Test shorthand: the optimizer, learning rate, global batch and epochs a test trains with, set
// on the Training tab through its set_config. Its other settings stay as they were; momentum and
// Nesterov start from the new optimizer's defaults.

#include <string>

#include "mirror/train/config.h"
#include "ui/setup/training_panel.h"

namespace mirror::ui {

inline void set_training(TrainingPanel* panel, const std::string& optimizer, double learning_rate, int64_t batch_size,
                         int epochs) {
  TrainConfig c;
  panel->config(c);
  c.optimizer = OptimizerConfig{}.with_name(optimizer).with_learning_rate(learning_rate);
  c.batch_size = batch_size;
  c.epochs = epochs;
  panel->set_config(c);
}

}  // namespace mirror::ui
