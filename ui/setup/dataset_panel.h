#pragma once
// Chooses and loads a dataset (off the GUI thread, with a progress bar while a loader reports
// how far it got), and shows what was loaded: sizes, classes with their balance, and a few
// examples. Your own data: a folder of images or texts, or a CSV table, chosen, dropped, or
// drawn by hand as points.

#include <QFutureWatcher>
#include <atomic>
#include <QWidget>

#include <memory>
#include <mutex>
#include <string>

#include "mirror/data/dataset_options.h"
#include "ui/setup/own_data_fields.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;
class QTableWidget;
class QGridLayout;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace mirror {
class Dataset;
struct TrainConfig;
}  // namespace mirror

namespace mirror::ui {

class PointPlot;
class PointEditor;

// How far the load under way has got: written by the loading thread, read by the GUI's timer.
struct LoadState {
  std::mutex mutex;
  int64_t done = 0;      // guarded by mutex
  int64_t total = 0;     // guarded by mutex; 0: not known
  std::string what;      // guarded by mutex
  std::atomic<bool> cancel{false};  // set when the load is no longer wanted; the loader stops at its next report
};

struct LoadResult {
  std::shared_ptr<const Dataset> dataset;
  QString error;
  double seconds = 0;
};

class DatasetPanel : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPanel(QWidget* parent = nullptr);
  ~DatasetPanel() override;  // a load under way is told to stop (it ends on its own thread)

  // Shows the config's dataset options that have a field here (dataset, folder, training
  // examples, sequence length, vocabulary, validation split, data seed, and your own data's image
  // size, colour mode, crop, links and label column) and keeps the others for options(); does not
  // load.
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
  // "Draw your own points": shown by the Draw points button; its "Use these points" chooses the
  // "table" dataset with the file written and loads it.
  PointEditor* point_editor() const { return editor_; }
  QPushButton* draw_points_button() const { return draw_; }
  const OwnDataFields& own_data_fields() const { return *own_; }
  QProgressBar* progress_bar() const { return progress_; }
  // Chooses the dataset that `path` (a dropped file or folder) holds, puts it in the Folder field
  // and loads it: what a drop on the panel does.
  void open_dropped(const QString& path);

 Q_SIGNALS:
  void dataset_changed(std::shared_ptr<const mirror::Dataset> dataset);  // null after a failure
  void loading_changed(bool loading);
  void error(const QString& message);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  static constexpr int kClassTableHeight = 160;  // the class table's most, px
  void on_loaded();
  void show_dataset();  // dataset_overview.cpp
  void update_option_visibility();
  void browse();
  void show_progress();
  // The fields' values into `o`.
  void write_shown(DatasetOptions& o) const;

  QComboBox* name_;
  QLineEdit* dir_;
  QLabel* dir_label_;  // "Folder", or "File" for a table
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
  QPushButton* draw_;
  PointEditor* editor_;
  std::unique_ptr<OwnDataFields> own_;
  QTimer* progress_timer_;
  std::shared_ptr<LoadState> load_state_;  // the load under way's
  QFutureWatcher<LoadResult> watcher_;
  std::shared_ptr<const Dataset> dataset_;
  DatasetOptions given_;      // set_config's: the options without a field
  DatasetOptions requested_;  // what the load under way (or the last one) loads
  DatasetOptions loaded_;     // what dataset_ was loaded with
  bool loading_ = false;
  bool reload_pending_ = false;
};

}  // namespace mirror::ui
