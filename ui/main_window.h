#pragma once
// The workbench window: dataset, model, training and device panels on the left; live charts and
// the replica view on the right; run controls in the toolbar; progress in the status bar.

#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>

#include "mirror/train/config.h"
#include "mirror/train/events.h"
#include "ui/event_types.h"
#include "ui/run_metrics.h"

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;
class QMenu;

namespace mirror::ui {

class DatasetPanel;
class ModelPanel;
class TrainingPanel;
class DevicesPanel;
class ReplicaView;
class MetricChart;
class TrainingController;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // `restore_settings` reads and writes QSettings (window layout, theme, last choices); tests
  // pass false for a clean, repeatable window.
  explicit MainWindow(bool restore_settings = true, QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a preset's model, hyperparameters, device count and dataset into the panels.
  void apply_preset(const QString& name);
  // Starts training with the panels' settings when they are valid.
  void start_training();
  // Starts a run with a given config and dataset, as start_training() does with the panels'
  // (benchmarks use it to run exactly the headless configuration).
  void start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset);

  // Whether runs are recorded under the runs folder (on by default).
  void set_recording(bool on) { recording_ = on; }
  // The directory of the current or last recorded run; empty if none.
  const QString& run_dir() const { return run_dir_; }

  // For tests and benchmarks.
  DatasetPanel* dataset_panel() const { return dataset_; }
  ModelPanel* model_panel() const { return model_; }
  TrainingPanel* training_panel() const { return training_; }
  DevicesPanel* devices_panel() const { return devices_; }
  MetricChart* chart(Metric m) const;
  QAction* train_action() const { return train_; }
  QAction* pause_action() const { return pause_; }
  QAction* stop_action() const { return stop_; }
  QLabel* error_banner() const { return banner_; }
  QLabel* train_blocked_label() const { return blocked_; }
  const RunMetrics& metrics() const { return metrics_; }
  bool running() const { return running_; }
  const RunFinished& last_result() const { return last_result_; }
  TrainingController* controller() const { return controller_; }

 Q_SIGNALS:
  void run_finished(const mirror::RunFinished& result);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_actions();
  void update_train_enabled();
  void on_dataset_changed();
  void on_started(const RunStarted& e);
  void on_step(const StepMetrics& e);
  void on_epoch(const EpochMetrics& e);
  void on_finished(const RunFinished& e);
  void redraw();
  void show_error(const QString& message);
  void set_dark(bool dark);
  void set_projector(bool on);
  void export_charts();
  void export_csv();
  void remember_dataset();
  void rebuild_recent_menu();
  void save_settings();

  bool restore_settings_;
  DatasetPanel* dataset_;
  ModelPanel* model_;
  TrainingPanel* training_;
  DevicesPanel* devices_;
  ReplicaView* replicas_;
  MetricChart* charts_[3];
  QTabWidget* tabs_;
  QLabel* banner_;
  QLabel* blocked_;
  QLabel* status_;
  QProgressBar* epoch_progress_;
  QAction* train_;
  QAction* pause_;
  QAction* stop_;
  QAction* log_scale_;
  QAction* dark_;
  QAction* projector_;
  QMenu* recent_;
  TrainingController* controller_;
  QTimer redraw_timer_;
  RunMetrics metrics_;
  StepMetrics last_step_;
  RunStarted started_;
  RunFinished last_result_;
  bool running_ = false;
  bool dirty_ = false;
  double step_seconds_ema_ = 0;
  QElapsedTimer since_draw_;   // since the last chart redraw
  double draw_cost_ms_ = 0;    // smoothed cost of one redraw
  QString preset_;
  bool recording_ = true;
  QString run_dir_;
};

}  // namespace mirror::ui
