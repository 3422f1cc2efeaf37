#pragma once
// The workbench window: dataset, model, training and device panels on the left; live charts and
// the replica view on the right; run controls in the toolbar; progress in the status bar.

#include <QElapsedTimer>
#include <QMainWindow>
#include <QTimer>

#include "mirror/runs/sweep.h"
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
class RunsBrowser;
class CompareView;

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
  // The config the panels describe (valid or not).
  TrainConfig current_config() const;

  // Trains each point as its own recorded run, one after another, on the loaded dataset, then
  // shows them compared (on the scaling page for a scaling study). Stop ends the sweep.
  void start_sweep(std::vector<SweepPoint> points, bool scaling);
  // The current config on 1, 2 and 4 logical devices, one epoch each (fewer steps when the
  // config says so): throughput, scaling efficiency and curves side by side.
  void start_scaling_study();
  bool sweeping() const { return !sweep_.points.empty(); }
  // Continues a stopped or killed recorded run from its newest checkpoint, on the Live page;
  // with `epochs` > 0, trains it on until that epoch (a finished run, continued).
  void resume_run(const QString& dir, int epochs = 0);
  // Shows the runs page with these run directories selected (added when outside the runs folder).
  void compare_runs(const QStringList& dirs);

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
  RunsBrowser* runs_browser() const { return browser_; }
  CompareView* compare_view() const { return compare_; }
  // "Live" (the current run) and "Runs" (browser and comparison).
  QTabWidget* views() const { return views_; }

 Q_SIGNALS:
  void run_finished(const mirror::RunFinished& result);
  // Every run of a sweep has ended (or Stop ended the sweep); `dirs` are the recorded runs.
  void sweep_finished(const QStringList& dirs);

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
  void show_error(const QString& message, const QString& headline = "The run failed.");
  void set_dark(bool dark);
  void set_projector(bool on);
  void export_charts();
  void export_csv();
  void remember_dataset();
  void rebuild_recent_menu();
  void save_settings();
  void begin_run();
  void refuse_start();
  void start_recorded(TrainConfig c, std::shared_ptr<const Dataset> dataset, const nlohmann::json& extra,
                      const std::string& display_name, const std::string& tag);
  void next_sweep_run();
  void open_sweep_dialog();
  void export_comparison();

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
  QAction* sweep_action_;
  QAction* scaling_action_;
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
  QTabWidget* views_;
  RunsBrowser* browser_;
  CompareView* compare_;
  struct Sweep {
    std::string id;
    std::vector<SweepPoint> points;
    size_t next = 0;
    bool scaling = false;
    bool cancelled = false;
    QStringList dirs;
  } sweep_;
};

}  // namespace mirror::ui
