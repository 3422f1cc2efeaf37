#include "ui/setup/setup_tabs.h"

#include <QFrame>
#include <QLineEdit>
#include <QScrollArea>

#include <optional>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/model/presets.h"
#include "mirror/model/shape.h"
#include "mirror/util/error.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/launch_dialog.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/preset_choice.h"
#include "ui/setup/training_panel.h"

namespace mirror::ui {

namespace {
QWidget* scrolled(QWidget* w) {
  auto* s = new QScrollArea;
  s->setWidget(w);
  s->setWidgetResizable(true);
  s->setFrameShape(QFrame::NoFrame);
  return s;
}
}  // namespace

SetupTabs::SetupTabs(QWidget* parent) : QTabWidget(parent) {
  setObjectName("setup_tabs");
  dataset_ = new DatasetPanel;
  model_ = new ModelPanel;
  training_ = new TrainingPanel;
  devices_ = new DevicesPanel;
  addTab(scrolled(dataset_), "Data");
  addTab(scrolled(model_), "Model");
  addTab(scrolled(training_), "Training");
  addTab(scrolled(devices_), "Devices");
  setMinimumWidth(380);

  connect(dataset_, &DatasetPanel::dataset_changed, this, &SetupTabs::on_dataset_changed);
  connect(dataset_, &DatasetPanel::loading_changed, this, &SetupTabs::changed);
  connect(model_, &ModelPanel::model_changed, this, &SetupTabs::changed);
  connect(model_, &ModelPanel::preset_chosen, this, &SetupTabs::apply_preset);
  connect(training_, &TrainingPanel::changed, this, [this] {
    devices_->set_batch_size(training_->batch_size());
    Q_EMIT changed();
  });
  connect(devices_, &DevicesPanel::changed, this, &SetupTabs::changed);
  connect(devices_, &DevicesPanel::launch_command_requested, this, [this] {
    auto* dialog = new LaunchDialog(current_config(), devices_->processes(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
  });
}

std::shared_ptr<const Dataset> SetupTabs::dataset() const { return dataset_->dataset(); }

bool SetupTabs::apply_preset(const QString& name) {
  const auto d = dataset_->dataset();
  const std::optional<InputSpec> input = d ? std::optional<InputSpec>(input_spec(*d)) : std::nullopt;
  PresetChoice choice;
  try {
    choice = choose_preset(name.toStdString(), current_config(), input ? &*input : nullptr);
  } catch (const ConfigError&) {
    return false;  // no such preset: nothing changes
  }
  const QString note = load(std::move(choice.config));
  // What was kept or replaced, before what loading said (a stand-in for missing files, say).
  const QString line = choice.said.isEmpty() ? note : note.isEmpty() ? choice.said : choice.said + " " + note;
  if (!line.isEmpty()) Q_EMIT status(line);
  Q_EMIT preset_applied(name);
  after_load();
  return true;
}

void SetupTabs::load_config(TrainConfig config) {
  const QString note = load(std::move(config));
  if (!note.isEmpty()) Q_EMIT status(note);
  after_load();
}

QString SetupTabs::load(TrainConfig config) {
  // The Data tab's folder is this machine's, not the config's: kept while the dataset stays.
  const DatasetOptions shown = dataset_->options();
  if (config.dataset.data_dir.empty() && config.dataset.name == shown.name) config.dataset.data_dir = shown.data_dir;
  // A dataset missing here gives way to its stand-in (Reuters: the synthetic Reuters-shaped set).
  const DatasetChoice choice = resolve_dataset(config.dataset);
  config.dataset = choice.options;
  if (!choice.note.empty()) stand_in_ = {choice.options.name, QString::fromStdString(choice.note)};
  loaded_ = std::move(config);
  preset_ = QString::fromStdString(loaded_.preset);
  dataset_->set_config(loaded_);
  model_->set_config(loaded_);
  training_->set_config(loaded_);
  devices_->set_config(loaded_);
  return choice.note.empty() ? QString() : stand_in_.note;
}

void SetupTabs::after_load() {
  if (dataset_->needs_load()) dataset_->load();
  else on_dataset_changed();
  Q_EMIT changed();
}

void SetupTabs::on_dataset_changed() {
  const auto d = dataset_->dataset();
  if (!stand_in_.note.isEmpty() && dataset_->options().name != stand_in_.name) {  // the note was about another set
    Q_EMIT status_withdrawn(stand_in_.note);
    stand_in_ = {};
  }
  training_->set_train_size(d ? d->size(Split::kTrain) : 0);
  if (d) {
    model_->set_input(input_spec(*d), true);
    // A dataset the model cannot take: offer the preset made for it rather than only the error.
    const std::string name = dataset_->options().name;
    QString offer;
    if (!model_->analysis().ok())
      for (const auto& p : presets())
        if (p.dataset == name && offer.isEmpty()) offer = QString::fromStdString(p.name);
    model_->offer_preset(offer, QString::fromStdString(name));
  } else {
    model_->set_input({}, false);
  }
  Q_EMIT dataset_changed();
  Q_EMIT changed();
}

QString SetupTabs::problem() const {
  if (dataset_->loading()) return "loading the dataset…";
  if (!dataset_->dataset()) return "no dataset loaded";
  if (!training_->problem().isEmpty()) return training_->problem();
  if (!devices_->problem().isEmpty()) return devices_->problem();
  if (model_->ok()) return {};
  QString why = "model: " + model_->problem();
  if (!model_->offered_preset().isEmpty())
    why += QString(" (the Model tab offers the %1 preset, made for this dataset)").arg(model_->offered_preset());
  return why;
}

TrainConfig SetupTabs::current_config() const {
  TrainConfig c = loaded_;  // what no tab shows
  dataset_->config(c);
  model_->config(c);
  training_->config(c);
  devices_->config(c);
  return c;
}

void SetupTabs::open_dataset(const QString& name, const QString& folder) {
  dataset_->set_dataset(name, folder);
  dataset_->load();
}

QStringList SetupTabs::open_model_file(const QString& path) {
  const QStringList notes = model_->open_model_file(path);
  for (int i = 0; i < count(); ++i)  // the layers shown, and on which row the model does not fit the data yet
    if (widget(i)->isAncestorOf(model_)) setCurrentIndex(i);
  return notes;
}

QString SetupTabs::take_run_name() {
  const QString name = training_->run_name_edit()->text();
  training_->run_name_edit()->clear();
  return name;
}

void SetupTabs::set_editable(bool on) {
  for (int i = 0; i < count(); ++i) widget(i)->setEnabled(on);
}

}  // namespace mirror::ui
