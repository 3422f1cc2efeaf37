#pragma once
// The settings of the next run: the Data, Model, Training and Devices tabs, and what they say
// together. It keeps the last loaded config for what no tab shows (schedules' fine print,
// checkpoints, ...), loads presets (your own data and devices stay where the preset's model can
// take them), says why Train cannot start, and names a stand-in for a dataset missing here. It
// knows nothing of runs or of the window: the window composes it (MainWindow), a test builds it
// alone (tests/ui/setup/test_setup_tabs.cpp).

#include <QStringList>
#include <QTabWidget>

#include <memory>
#include <string>

#include "mirror/train/config.h"

namespace mirror {
class Dataset;
}  // namespace mirror

namespace mirror::ui {

class DatasetPanel;
class ModelPanel;
class TrainingPanel;
class DevicesPanel;

class SetupTabs : public QTabWidget {
  Q_OBJECT
 public:
  explicit SetupTabs(QWidget* parent = nullptr);

  // The preset's model and training; your own data and the devices stay where its model takes
  // them (choose_preset), and status() says what was kept or replaced. False, changing nothing,
  // for a preset that does not exist.
  bool apply_preset(const QString& name);
  // Shows a config in the tabs and keeps what none of them shows for current_config(). A dataset
  // missing here gives way to its stand-in (resolve_dataset; status() says so); an empty data
  // folder keeps the Data tab's for the same dataset. Loads the dataset when it is not the one
  // loaded (dataset_changed() follows, at once or when loading ends).
  void load_config(TrainConfig config);
  // The config the tabs describe (valid or not): the last loaded one with each tab's fields.
  TrainConfig current_config() const;
  // The loaded config's preset ("" for none).
  const QString& preset() const { return preset_; }
  // The loaded dataset; null while none is (loading, or after a failure).
  std::shared_ptr<const Dataset> dataset() const;
  // Why Train cannot start with these settings, in the words the status bar shows after "Cannot
  // train: "; empty when it can.
  QString problem() const;
  // A dataset by name and folder (File → Open dataset folder, Recent datasets), loaded.
  void open_dataset(const QString& name, const QString& folder);
  // A Keras model file's layers in the Model tab, shown; what was not imported, in words. Throws
  // what ModelPanel::open_model_file throws for a file it cannot read.
  QStringList open_model_file(const QString& path);
  // The run name typed on the Training tab, cleared: a name is for one run.
  QString take_run_name();
  // Read-only during a run; every tab can still be looked at.
  void set_editable(bool on);

  DatasetPanel* dataset_panel() const { return dataset_; }
  ModelPanel* model_panel() const { return model_; }
  TrainingPanel* training_panel() const { return training_; }
  DevicesPanel* devices_panel() const { return devices_; }

 Q_SIGNALS:
  // Something that may change problem() changed.
  void changed();
  // Another dataset is loaded (dataset() may be null after a failed load).
  void dataset_changed();
  // A preset was applied (its demo pace follows it, in the window).
  void preset_applied(const QString& name);
  // A line for the status bar; `withdrawn`: the line is no longer true, clear it if still shown.
  void status(const QString& line);
  void status_withdrawn(const QString& line);

 private:
  // Loads `config` into the tabs; returns the stand-in note ("" when the dataset is here).
  QString load(TrainConfig config);
  void after_load();
  void on_dataset_changed();

  DatasetPanel* dataset_;
  ModelPanel* model_;
  TrainingPanel* training_;
  DevicesPanel* devices_;
  TrainConfig loaded_;  // the last load_config's: what no tab shows comes from it
  QString preset_;
  // The note that `name` stands in for a missing dataset: withdrawn once another loads.
  struct StandIn {
    std::string name;
    QString note;
  } stand_in_;
};

}  // namespace mirror::ui
