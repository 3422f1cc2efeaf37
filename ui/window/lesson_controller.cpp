#include "ui/window/lesson_controller.h"

#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QTabWidget>

#include <algorithm>

#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/x_axis.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/run_launcher.h"
#include "ui/runs/compare_view.h"
#include "ui/widgets/dock_title_bar.h"

namespace mirror::ui {

namespace {
XAxis lesson_axis(const Lesson& lesson) {
  return static_cast<XAxis>(x_axis_named(lesson.x_axis).value_or(mirror::XAxis::kStep));
}

// "1 Dec 2026, 10:38" from a run folder named "<UTC yyyyMMdd-HHmmss>-...", in local time.
QString recorded_when(const std::string& dir) {
  QDateTime t = QDateTime::fromString(QDir(QString::fromStdString(dir)).dirName().left(15), "yyyyMMdd-HHmmss");
  if (!t.isValid()) return "earlier";
  t.setTimeSpec(Qt::UTC);
  return "on " + t.toLocalTime().toString("d MMM yyyy, HH:mm");
}

// The dock's line for a lesson run, as core judges it.
void show_outcome(LessonPanel* panel, size_t index, const LessonRunOutcome& outcome) {
  panel->set_run_state(index, QString::fromStdString(outcome.words), /*problem=*/!outcome.as_meant);
}
}  // namespace

LessonController::LessonController(LessonHost host) : QObject(host.window), host_(std::move(host)) {}

bool LessonController::busy() const { return host_.launcher->running() || host_.launcher->sweeping(); }

void LessonController::open_dialog() {
  LessonsDialog dialog(host_.window);
  if (dialog.exec() == QDialog::Accepted && !dialog.chosen().isEmpty()) open(dialog.chosen());
}

void LessonController::make_dock() {
  if (dock_) return;
  dock_ = new QDockWidget("Lesson", host_.window);
  dock_->setObjectName("lesson_dock");
  use_own_title_bar(dock_);  // projector type reaches its title too
  panel_ = new LessonPanel;
  dock_->setWidget(panel_);
  host_.window->addDockWidget(Qt::RightDockWidgetArea, dock_);
  connect(panel_, &LessonPanel::run_requested, this, &LessonController::start);
  // Closing the lesson takes its banner with it: opening the lesson cleared the banner, so what
  // it says now is the lesson's (a run that failed, one that could not start). Hidden by its
  // window being minimised or another dock's tab is not closed: the dock is not hidden then.
  connect(dock_, &QDockWidget::visibilityChanged, this, [this](bool visible) {
    if (!visible && dock_->isHidden()) host_.banner->setVisible(false);
    host_.fold_setup();  // an open lesson gives the pages the width
  });
  connect(panel_, &LessonPanel::compare_requested, this, [this] {
    host_.compare->set_x_axis(lesson_axis(panel_->lesson()));
    host_.compare_runs(dirs_);
  });
}

bool LessonController::open(const QString& name_or_path, int64_t max_steps) {
  if (busy()) {
    Q_EMIT problem("a run is training: stop it (Ctrl+.) or let it finish, then open the lesson.", "Cannot open the lesson:");
    return false;
  }
  Lesson lesson;
  LessonPlan plan;
  try {
    lesson = find_lesson(name_or_path.toStdString());
    plan = plan_lesson(lesson, max_steps);
  } catch (const ConfigError& e) {
    Q_EMIT problem(e.what(), "Cannot open the lesson:");
    return false;
  }
  make_dock();
  max_steps_ = max_steps;
  dirs_.clear();
  host_.banner->setVisible(false);
  panel_->show_lesson(lesson, plan.notes);
  dock_->setWindowTitle("Lesson: " + QString::fromStdString(lesson.title));
  dock_->show();
  dock_->raise();
  // A side column wide enough to read (a quarter of the window), never pushing the window wider.
  host_.window->resizeDocks({dock_}, {std::max(240, host_.window->width() / 4)}, Qt::Horizontal);
  const std::vector<std::string> recorded = recorded_lesson_runs(default_runs_root(), lesson);
  if (recorded.empty()) {
    start();
    return true;
  }
  QStringList dirs;
  for (size_t i = 0; i < recorded.size(); ++i) {
    dirs << QString::fromStdString(recorded[i]);
    try {
      const RunRecord r = read_run(recorded[i]);
      if (i < lesson.runs.size()) show_outcome(panel_, i, judge_lesson_run(lesson.runs[i], r.status, r.message()));
    } catch (const DataError& e) {
      panel_->set_run_state(i, QString("cannot be read: %1").arg(e.what()), true);
    }
  }
  show_runs(dirs, QString("These runs were recorded %1. Run the lesson to train them again.").arg(recorded_when(recorded.front())));
  return true;
}

void LessonController::start() {
  if (!panel_ || busy()) return;
  const Lesson lesson = panel_->lesson();
  LessonPlan plan;
  try {
    plan = plan_lesson(lesson, max_steps_);
  } catch (const ConfigError& e) {
    Q_EMIT problem(e.what(), "Cannot run the lesson:");
    return;
  }
  panel_->show_lesson(lesson, plan.notes);
  panel_->set_source({});
  training_ = true;
  position_ = 0;
  dirs_.clear();
  host_.compare->set_x_axis(lesson_axis(lesson));
  host_.show_live();
  host_.launcher->start_sweep(std::move(plan.points), lesson.scaling, host_.config(), host_.dataset(), lesson.name);
  if (!host_.launcher->sweeping()) training_ = false;  // refused: the banner says why
}

void LessonController::run_begun() {
  if (training_) panel_->set_run_state(position_++, "training…");
}

bool LessonController::run_ended(const RunFinished& e) {
  if (!training_ || position_ == 0) return false;
  const size_t index = position_ - 1;
  const auto& runs = panel_->lesson().runs;
  if (index >= runs.size()) return false;
  const LessonRunOutcome outcome = judge_lesson_run(runs[index], e.status, e.message);
  show_outcome(panel_, index, outcome);
  return outcome.meant_failure;
}

bool LessonController::sweep_ended(const QStringList& dirs, bool cancelled) {
  if (!training_) return false;
  training_ = false;
  show_runs(dirs, cancelled ? "Stopped before every run had trained." : "Trained just now.");
  for (size_t i = position_; i < panel_->lesson().runs.size(); ++i) panel_->set_run_state(i, "not run (stopped)");
  return true;
}

void LessonController::show_runs(const QStringList& dirs, const QString& source) {
  dirs_ = dirs;
  panel_->set_source(dirs.isEmpty() ? QString() : source);
  if (dirs.isEmpty()) return;
  host_.compare->set_x_axis(lesson_axis(panel_->lesson()));
  host_.compare_runs(dirs);  // the comparison is what the class looks at: it gets the page
}

}  // namespace mirror::ui
