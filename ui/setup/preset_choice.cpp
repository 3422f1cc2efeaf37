// Tested by tests/ui/setup/test_presets.cpp (a preset keeps your data, or says why not).
#include "ui/setup/preset_choice.h"

#include "mirror/model/presets.h"
#include "mirror/model/shape.h"

namespace mirror::ui {

PresetChoice choose_preset(const std::string& preset, const TrainConfig& current, const InputSpec* input) {
  PresetChoice choice{config_from_preset(preset), {}};
  const DatasetOptions& mine = current.dataset;
  if (mine.data_dir.empty()) return choice;  // a built-in set: the preset's data comes with it
  const QString name = QString::fromStdString(preset);
  const QString data = QString("your %1 (%2)").arg(QString::fromStdString(mine.name), QString::fromStdString(mine.data_dir));
  if (!input || !analyze(choice.config.model, *input).ok()) {
    choice.said = QString("Preset %1: its model cannot take %2, so its own data (%3) is loaded instead.")
                      .arg(name, data, QString::fromStdString(choice.config.dataset.name));
    return choice;
  }
  choice.config.dataset = mine;
  choice.config.devices = current.devices;
  choice.said = QString("Preset %1 set the model and the training; %2 and the devices (%3 logical on %4) stay.")
                    .arg(name, data)
                    .arg(current.devices.logical)
                    .arg(QString::fromStdString(current.devices.devices));
  return choice;
}

}  // namespace mirror::ui
