#pragma once
// The workbench window: the settings (SetupTabs: data, model, training, devices) on the left,
// folded to a one-line strip while training, in a lesson, in projector mode and in a presentation,
// so that the pages take the width; the Live, Strategy, Learned and Runs pages on the right; run
// controls in the toolbar; progress in the status bar. It lays out and wires, and each part is
// built from what it needs: runs are started by its RunLauncher (main_window_runs.cpp reacts to
// them), settings kept by WindowSettings, menus built in main_window_menus.cpp, the status bar is
// a StatusLine, lessons the LessonController's, quitting and resuming QuitAndResume's, projector
// mode and presentations Presentation's.

#include <QMainWindow>

#include <functional>
#include <memory>
#include <vector>

#include "mirror/runs/sweep.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"
#include "ui/run/event_types.h"
#include "ui/window/quit_and_resume.h"

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QTabWidget;
class QMenu;
class QToolButton;

namespace mirror::ui {

class SetupTabs;
class LivePage;
class MetricChart;
class RunLauncher;
class TrainingController;
class RunsBrowser;
class RunsPage;
class CompareView;
class LearnedView;
class StrategyView;
class WindowSettings;
class LessonPanel;
class LessonController;
class Presentation;
class StatusLine;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // What closing the window during a run does (QuitAndResume asks).
  using QuitChoice = ui::QuitChoice;

  // `restore_settings` reads and writes QSettings (window layout, theme, last choices); tests
  // pass false for a clean, repeatable window.
  explicit MainWindow(bool restore_settings = true, QWidget* parent = nullptr);
  ~MainWindow() override;

  // The Data, Model, Training and Devices tabs: the next run's settings (presets, configs, why
  // Train cannot start). A preset applied there brings its demo pace here.
  SetupTabs* setup() const { return setup_; }
  // Starts training with the tabs' settings when they are valid.
  void start_training();
  // Starts a run with a given config and dataset, as start_training() does with the tabs'
  // (benchmarks use it to run exactly the headless configuration).
  void start_run(TrainConfig config, std::shared_ptr<const Dataset> dataset);

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
  // Shows the runs page with these run directories selected (added when outside the runs folder)
  // and compared, the runs list folded away to its button: the comparison gets the page.
  void compare_runs(const QStringList& dirs);
  // File → Open Keras model…: its layers into the model editor; what was not imported is said (a
  // file it cannot open: in a message box, modal).
  void open_keras_model(const QString& path);

  // Lessons: the Lesson dock beside the charts, its runs trained, judged and compared.
  LessonController* lessons() const { return lessons_; }

  // A demo pace for this and later runs (steps per second; 0: full speed), remembered per preset.
  void set_pace(double steps_per_second);
  double pace() const;

  // Answers the quit question without asking (tests); nullptr: ask with a dialog.
  void set_quit_choice(std::function<QuitChoice()> choose);
  // "Last time, run X was stopped…  Resume / Not now": shown at start when the window was closed
  // or killed during a run. Hidden otherwise.
  QWidget* resume_offer() const;

  // The settings fold to a one-line summary strip while a run or a lesson's runs train, while a
  // lesson is open, in projector mode and during a presentation, so that the pages take the
  // window's width; the strip's button unfolds them until the next run (or projector mode's
  // toggle). The strip says what trains (a lesson's or sweep's run: which, and its settings).
  // Called when any of those changes.
  void fold_setup();
  // The strip that stands in for the settings when folded.
  QWidget* setup_strip() const { return setup_strip_; }

  // For tests and benchmarks.
  QAction* train_action() const { return train_; }
  QAction* pause_action() const { return pause_; }
  QAction* stop_action() const { return stop_; }
  QAction* dark_action() const { return dark_; }
  QAction* projector_action() const;
  QAction* full_screen_action() const;
  // View → Presentation (F5): the pages only, in projector type, changed with Page Down / Page Up
  // (a presenter's clicker); Esc leaves.
  QAction* presentation_action() const;
  // Writes the page shown (Live, Strategy, Learned or Runs) as it looks: SVG, or PNG when `path`
  // ends in .png. False when the file cannot be written.
  bool export_view(const QString& path);
  QLabel* error_banner() const { return banner_; }
  QLabel* train_blocked_label() const { return blocked_; }
  // Runs: started, followed (its LiveRun: metrics, the last result) and recorded.
  RunLauncher* launcher() const { return launcher_; }
  LivePage* live_page() const { return live_page_; }
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
  // Shown: projector type follows the window from screen to screen from now on.
  void showEvent(QShowEvent* event) override;

 private:
  // main_window_menus.cpp: the toolbar, the menus and what their entries do.
  void build_actions();
  void set_dark(bool dark);
  void set_projector(bool on);
  // Projector type and line widths for this window's screen (1/40 of its height), or normal ones.
  void apply_projector_type(bool on);
  void export_charts();
  void export_csv();
  void export_comparison();
  void open_sweep_dialog();
  void rebuild_recent_menu();
  void remember_dataset();
  // File → Export model…: the selected run's model (or the last run's), through ExportModelDialog.
  void export_model();

  void update_train_enabled();
  void on_dataset_changed();
  TrainConfig current_config() const;
  // main_window_runs.cpp: a run begun, followed, ended; a sweep ended; the banner.
  void on_run_begun(const QString& what);
  void on_frame();
  void on_finished(const RunFinished& e);
  void on_sweep_finished(const QStringList& dirs, bool cancelled, int total);
  void show_error(const QString& message, const QString& headline = "The run failed.");

  std::unique_ptr<WindowSettings> settings_;  // null: settings are neither read nor written
  RunLauncher* launcher_;
  SetupTabs* setup_;
  LivePage* live_page_;
  QWidget* setup_strip_;
  QLabel* setup_summary_;
  QToolButton* setup_toggle_;
  bool setup_unfolded_ = false;  // the strip's button showed the settings during a run or lesson
  QLabel* banner_;
  QuitAndResume* quit_;
  LessonController* lessons_;
  Presentation* presentation_ = nullptr;  // made with the menus
  StatusLine* status_line_;
  QLabel* blocked_;  // status_line_'s: why Train is disabled
  QLabel* status_;   // status_line_'s: what the run is doing
  QAction* train_;
  QAction* pause_;
  QAction* stop_;
  QAction* log_scale_;
  QAction* learning_rate_chart_ = nullptr;
  QComboBox* pace_ = nullptr;
  QAction* dark_;
  QAction* sweep_action_;
  QAction* scaling_action_;
  QMenu* recent_;
  QTabWidget* views_;
  RunsBrowser* browser_;
  CompareView* compare_;
  RunsPage* runs_page_;
  LearnedView* learned_;
  StrategyView* strategy_;
};

}  // namespace mirror::ui
