#pragma once
// A preset chosen in the window sets the model and the training. Data of the user's own (a folder
// or file named on the Data tab: images, texts, a table, drawn points) and the devices stay when
// the preset's model can take that data; otherwise the preset's own data comes with it, and the
// window says which it was. (Choosing a preset used to drop a 60-image folder at 32x32 on 4
// devices for fashion-mnist at its own size on 2.)

#include <QString>

#include <string>

#include "mirror/train/config.h"

namespace mirror {
struct InputSpec;
}  // namespace mirror

namespace mirror::ui {

struct PresetChoice {
  TrainConfig config;  // what the tabs load
  QString said;        // what was kept or replaced, for the status line; empty: nothing of yours was there
};

// `current`: the tabs' settings; `input`: the loaded dataset's input, or null while none is
// loaded. Throws ConfigError for an unknown preset.
PresetChoice choose_preset(const std::string& preset, const TrainConfig& current, const InputSpec* input);

}  // namespace mirror::ui
