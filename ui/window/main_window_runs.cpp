// The window's runs: started from the panels' settings (one run, a sweep, a scaling study),
// resumed, followed in the status bar and the banner, and compared on the Runs page when they end.
#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>

#include "mirror/util/error.h"
#include "ui/live/live_page.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/runs/runs_browser.h"
#include "ui/runs/runs_page.h"
#include "ui/setup/devices_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/setup/training_panel.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "ui/window/status_line.h"

namespace mirror::ui {

void MainWindow::start_training() {
  if (launcher_->running() || !train_->isEnabled()) return;
  start_run(current_config(), setup_->dataset());
}

void MainWindow::start_run(TrainConfig c, std::shared_ptr<const Dataset> dataset) {
  const QString name = setup_->take_run_name();  // a name is for one run: the next one does not inherit it
  launcher_->start_run(std::move(c), std::move(dataset), setup_->devices_panel()->processes(), name);
}

void MainWindow::resume_run(const QString& dir, int epochs) {
  views_->setCurrentIndex(0);
  launcher_->resume_run(dir, epochs);
}

void MainWindow::start_sweep(std::vector<SweepPoint> points, bool scaling) {
  views_->setCurrentIndex(0);
  launcher_->start_sweep(std::move(points), scaling, current_config(), setup_->dataset());
}

void MainWindow::start_scaling_study() {
  if (launcher_->running() || !train_->isEnabled()) return;
  try {
    start_sweep(scaling_study_points(current_config()), true);
  } catch (const ConfigError& e) {
    show_error(e.what(), "Cannot run the scaling study:");
  }
}

void MainWindow::compare_runs(const QStringList& dirs) {
  if (browser_->loading()) {  // the runs folder is still being read
    connect(browser_, &RunsBrowser::loaded, this, [this, dirs] { compare_runs(dirs); }, Qt::SingleShotConnection);
    views_->setCurrentWidget(runs_page_);
    return;
  }
  runs_page_->compare_runs(dirs);
  views_->setCurrentWidget(runs_page_);
  // The comparison fills the page (at 1280x720 in projector type the list left its plots 65 px);
  // the list is a click away, on the comparison's "Runs list" button.
  runs_page_->fold_list(!dirs.isEmpty());
}

void MainWindow::on_run_begun(const QString& what) {
  banner_->setVisible(false);
  setup_unfolded_ = false;  // each run gives the pages the width again
  pause_->setChecked(false);
  update_train_enabled();
  status_->setText(what);
  lessons_->run_begun();
}

void MainWindow::on_frame() {
  const LiveRun& live = *launcher_->live();
  if (live.last_step().global_step == 0) return;
  status_line_->show_step(live, setup_->training_panel()->epochs(), pause_->isChecked(),
                          {launcher_->sweeping() ? launcher_->sweep_position() : 0, launcher_->sweeping() ? launcher_->sweep_size() : 0});
  setup_->devices_panel()->show_peak_memory(live.last_step().replicas);
  learning_rate_chart_->setChecked(live_page_->learning_rate_shown());  // it may have turned itself on
}

void MainWindow::on_finished(const RunFinished& e) {
  pause_->setChecked(false);
  const bool meant_failure = lessons_->run_ended(e);  // the Lesson dock says how a lesson's run went
  status_line_->show_finished(e, *launcher_->live(), launcher_->run_dir());
  if (e.status == RunStatus::kFailed)
    show_error(QString::fromStdString(e.message), meant_failure ? "The run failed, as the lesson means it to:" : "The run failed.");
  update_train_enabled();
  browser_->refresh();
  Q_EMIT run_finished(e);
}

void MainWindow::on_sweep_finished(const QStringList& dirs, bool cancelled, int total) {
  update_train_enabled();
  if (!lessons_->sweep_ended(dirs, cancelled)) compare_runs(dirs);  // a lesson's runs it shows itself
  status_line_->show_sweep_finished(static_cast<int>(dirs.size()), total, cancelled);
  Q_EMIT sweep_finished(dirs);
}

void MainWindow::show_error(const QString& message, const QString& headline) {
  banner_->setText("<b>" + headline.toHtmlEscaped() + "</b> " + message.toHtmlEscaped());
  banner_->setVisible(true);
}

}  // namespace mirror::ui
