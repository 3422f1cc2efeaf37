#pragma once
// The workbench window: dataset, model, training and device panels on the left; the Live page
// (charts and replica view, following a LiveRun) and the Runs page on the right; run controls in
// the toolbar; progress in the status bar. It lays out and wires: runs are started by its
// RunLauncher, settings are kept by WindowSettings, menus are built in main_window_menus.cpp.

#include <QMainWindow>

#include <functional>
#include <memory>
#include <vector>

#include "mirror/runs/sweep.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"
#include "ui/run/event_types.h"
#include "ui/run/run_metrics.h"

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QProgressBar;
class QTabWidget;
class QMenu;

namespace mirror::ui {

class DatasetPanel;
class ModelPanel;
class TrainingPanel;
class DevicesPanel;
class LivePage;
class MetricChart;
class RunLauncher;
class TrainingController;
class RunsBrowser;
class CompareView;
class LearnedView;
class StrategyView;
class WindowSettings;
class LessonPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // What closing the window during a run does.
  enum class QuitChoice {
    kStopAndQuit,    // stop after the current step (the run stays resumable) and close
    kQuitWhenDone,   // close when the run (or sweep) ends by itself
    kKeepTraining,   // do not close
  };

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
  bool sweeping() const;
  // Continues a stopped or killed recorded run from its newest checkpoint, on the Live page;
  // with `epochs` > 0, trains it on until that epoch (a finished run, continued).
  void resume_run(const QString& dir, int epochs = 0);
  // Shows the runs page with these run directories selected (added when outside the runs folder).
  void compare_runs(const QStringList& dirs);
  // File → Open Keras model…: its layers into the model editor; what was not imported is said (a
  // file it cannot open: in a message box, modal).
  void open_keras_model(const QString& path);

  // Opens a lesson (a name as Help → Lessons… lists it, or the path of a lesson's .json file) in
  // the Lesson dock beside the charts. Its runs, when recorded before (`mirrortrain lesson`, or an
  // earlier class), open compared at once; otherwise they train now. `max_steps` > 0 caps every
  // run (rehearsals, tests). False, with the reason in the banner, when it cannot be opened.
  bool open_lesson(const QString& name_or_path, int64_t max_steps = 0);
  // Trains the open lesson's runs (again), one after another, then compares them.
  void start_lesson();
  bool lesson_training() const { return lesson_training_; }
  LessonPanel* lesson_panel() const { return lesson_panel_; }
  QDockWidget* lesson_dock() const { return lesson_dock_; }

  // Whether runs are recorded under the runs folder (on by default).
  void set_recording(bool on);
  // The directory of the current or last recorded run; empty if none.
  const QString& run_dir() const;

  // A demo pace for this and later runs (steps per second; 0: full speed), remembered per preset.
  void set_pace(double steps_per_second);
  double pace() const;

  // Answers the quit question without asking (tests); nullptr: ask with a dialog.
  void set_quit_choice(std::function<QuitChoice()> choose) { choose_quit_ = std::move(choose); }
  // "Last time, run X was stopped…  Resume / Not now": shown at start when the window was closed
  // or killed during a run. Hidden otherwise.
  QWidget* resume_offer() const { return resume_offer_; }

  // For tests and benchmarks.
  DatasetPanel* dataset_panel() const { return dataset_; }
  ModelPanel* model_panel() const { return model_; }
  TrainingPanel* training_panel() const { return training_; }
  DevicesPanel* devices_panel() const { return devices_; }
  MetricChart* chart(Metric m) const;
  QAction* train_action() const { return train_; }
  QAction* pause_action() const { return pause_; }
  QAction* stop_action() const { return stop_; }
  QAction* dark_action() const { return dark_; }
  QAction* projector_action() const { return projector_; }
  QAction* full_screen_action() const { return full_screen_; }
  // View → Presentation (F5): the pages only, in projector type, changed with Page Down / Page Up
  // (a presenter's clicker); Esc leaves.
  QAction* presentation_action() const { return presentation_; }
  // Writes the page shown (Live, Strategy, Learned or Runs) as it looks: SVG, or PNG when `path`
  // ends in .png. False when the file cannot be written.
  bool export_view(const QString& path);
  QLabel* error_banner() const { return banner_; }
  QLabel* train_blocked_label() const { return blocked_; }
  const RunMetrics& metrics() const;
  bool running() const;
  const RunFinished& last_result() const;
  TrainingController* controller() const;
  RunLauncher* launcher() const { return launcher_; }
  RunsBrowser* runs_browser() const { return browser_; }
  CompareView* compare_view() const { return compare_; }
  LearnedView* learned_view() const { return learned_; }
  StrategyView* strategy_view() const { return strategy_; }
  // "Live" (the current run), "Strategy" (its mirrored step drawn), "Learned" (what its model
  // learned) and "Runs" (browser and comparison).
  QTabWidget* views() const { return views_; }

 Q_SIGNALS:
  void run_finished(const mirror::RunFinished& result);
  // Every run of a sweep has ended (or Stop ended the sweep); `dirs` are the recorded runs.
  void sweep_finished(const QStringList& dirs);

 protected:
  void closeEvent(QCloseEvent* event) override;
  // Keeps View → Full screen checked exactly while the window is full screen, however it got there.
  void changeEvent(QEvent* event) override;

 private:
  // main_window_menus.cpp: the toolbar, the menus and what their entries do.
  void build_actions();
  void set_dark(bool dark);
  void set_projector(bool on);
  void set_presentation(bool on);
  // Sizes the status bar's progress bar to the current font.
  void fit_status_bar();
  void export_charts();
  void export_csv();
  void export_comparison();
  void open_sweep_dialog();
  void rebuild_recent_menu();
  // main_window_lessons.cpp: Help → Lessons…, and the open lesson's runs compared.
  void open_lessons_dialog();
  void show_lesson_runs(const QStringList& dirs, const QString& source);
  // The lesson run at `index` (0-based) ended: its state in the Lesson dock.
  void lesson_run_ended(size_t index, const std::string& status, const std::string& message);
  // Whether the lesson run at `index` is meant to fail with `message` (Broken sync).
  bool lesson_failure_meant(size_t index, const std::string& message) const;
  void remember_dataset();

  void update_train_enabled();
  void on_dataset_changed();
  void on_run_begun(const QString& what);
  void on_started(const RunStarted& e);
  void on_frame();
  void on_finished(const RunFinished& e);
  void on_sweep_finished(const QStringList& dirs, bool cancelled, int total);
  void show_error(const QString& message, const QString& headline = "The run failed.");
  // Fills resume_offer_ for the run the settings name, when it can be resumed.
  void offer_last_run();
  // File → Export model…: the selected run's model (or the last run's), through ExportModelDialog.
  void export_model();
  QuitChoice ask_quit();
  // Closes the window after "Quit when it finishes" once training has ended.
  void close_by_itself();

  std::unique_ptr<WindowSettings> settings_;  // null: settings are neither read nor written
  RunLauncher* launcher_;
  DatasetPanel* dataset_;
  ModelPanel* model_;
  TrainingPanel* training_;
  DevicesPanel* devices_;
  LivePage* live_page_;
  QTabWidget* tabs_;
  QLabel* banner_;
  QWidget* resume_offer_;
  QLabel* resume_text_;
  std::function<QuitChoice()> choose_quit_;
  bool quit_when_done_ = false;
  bool closing_by_itself_ = false;
  QLabel* blocked_;
  QLabel* status_;
  QProgressBar* epoch_progress_;
  QAction* train_;
  QAction* pause_;
  QAction* stop_;
  QAction* log_scale_;
  QAction* learning_rate_chart_ = nullptr;
  QComboBox* pace_ = nullptr;
  QAction* dark_;
  QAction* projector_;
  QAction* full_screen_ = nullptr;
  QAction* presentation_ = nullptr;
  QAction* next_page_ = nullptr;
  QAction* previous_page_ = nullptr;
  QAction* leave_presentation_ = nullptr;
  bool projector_before_ = false;  // projector mode as it was before the presentation
  QAction* sweep_action_;
  QAction* scaling_action_;
  QMenu* recent_;
  QString preset_;
  QTabWidget* views_;
  RunsBrowser* browser_;
  CompareView* compare_;
  QWidget* runs_page_;
  LearnedView* learned_;
  StrategyView* strategy_;
  QDockWidget* lesson_dock_ = nullptr;
  LessonPanel* lesson_panel_ = nullptr;
  int64_t lesson_max_steps_ = 0;
  bool lesson_training_ = false;  // the sweep running is the open lesson's
  size_t lesson_position_ = 0;    // runs of it begun so far
  QStringList lesson_dirs_;       // its runs, once trained or found recorded
  bool comparison_only_ = false;  // the next compare_runs folds the runs list away (a lesson's runs)
};

}  // namespace mirror::ui
