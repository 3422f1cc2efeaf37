#pragma once
// Chooses and loads a dataset (off the GUI thread), and shows what was loaded: sizes, classes
// with their balance, and a few examples.

#include <QFutureWatcher>
#include <QWidget>

#include <memory>

#include "mirror/data/dataset_options.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;
class QTableWidget;
class QGridLayout;
class QPlainTextEdit;

namespace mirror {
class Dataset;
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class PointPlot;

struct LoadResult {
  std::shared_ptr<const Dataset> dataset;
  QString error;
  double seconds = 0;
};

class DatasetPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPanel(QWidget* parent = nullptr);

  // Shows the config's dataset options that have a field here (dataset, folder, training
  // examples, sequence length, vocabulary, validation split, data seed) and keeps the others for
  // options(); does not load.
  void set_config(const TrainConfig& config);
  // Writes the options shown into `into.dataset`, leaving the rest of `into` as it is.
  void config(TrainConfig& into) const;
  // What load() loads: set_config's options with the fields as shown.
  DatasetOptions options() const;
  // Selects a dataset (and optionally its directory) without loading it.
  void set_dataset(const QString& name, const QString& dir = {});
  std::shared_ptr<const Dataset> dataset() const { return dataset_; }
  // Whether dataset() is not (or not yet) the one options() describe, so load() is needed.
  bool needs_load() const;
  // From load() until dataset_changed() is emitted (the worker's end alone is not enough: the
  // dataset is taken over on the GUI thread after it).
  bool loading() const { return loading_ || reload_pending_; }
  // Loads the selected dataset on a worker thread; dataset_changed() follows.
  void load();
  // The scatter plot of a 2-D point dataset (hidden for other data).
  PointPlot* point_plot() const { return points_; }

 Q_SIGNALS:
  void dataset_changed(std::shared_ptr<const mirror::Dataset> dataset);  // null after a failure
  void loading_changed(bool loading);
  void error(const QString& message);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void on_loaded();
  void show_dataset();
  void update_option_visibility();
  // The fields' values into `o`.
  void write_shown(DatasetOptions& o) const;

  QComboBox* name_;
  QLineEdit* dir_;
  QSpinBox* train_size_;
  QSpinBox* seq_len_;
  QSpinBox* num_words_;
  QSpinBox* seed_;
  QSpinBox* validation_;
  QLabel* summary_;
  QProgressBar* progress_;
  QTableWidget* classes_;
  QWidget* samples_;
  QGridLayout* samples_layout_;
  PointPlot* points_;
  QLabel* error_;
  QFutureWatcher<LoadResult> watcher_;
  std::shared_ptr<const Dataset> dataset_;
  DatasetOptions given_;      // set_config's: the options without a field
  DatasetOptions requested_;  // what the load under way (or the last one) loads
  DatasetOptions loaded_;     // what dataset_ was loaded with
  bool loading_ = false;
  bool reload_pending_ = false;
};

}  // namespace mirror::ui
