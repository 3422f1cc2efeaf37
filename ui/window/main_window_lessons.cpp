// The window's lessons: Help → Lessons…, the Lesson dock, and a lesson's runs trained in order
// and compared on the lesson's x axis.
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QLabel>

#include <algorithm>

#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/run_launcher.h"
#include "ui/runs/compare_view.h"
#include "ui/setup/dataset_panel.h"
#include "ui/window/main_window.h"

namespace mirror::ui {

namespace {
XAxis lesson_axis(const Lesson& lesson) {
  const auto* at = std::find(std::begin(kLessonXAxes), std::end(kLessonXAxes), lesson.x_axis);
  return static_cast<XAxis>(at == std::end(kLessonXAxes) ? 0 : at - std::begin(kLessonXAxes));
}

// "1 Dec 2026, 10:38" from a run folder named "<UTC yyyyMMdd-HHmmss>-...", in local time.
QString recorded_when(const std::string& dir) {
  QDateTime t = QDateTime::fromString(QDir(QString::fromStdString(dir)).dirName().left(15), "yyyyMMdd-HHmmss");
  if (!t.isValid()) return "earlier";
  t.setTimeSpec(Qt::UTC);
  return "on " + t.toLocalTime().toString("d MMM yyyy, HH:mm");
}
}  // namespace

void MainWindow::open_lessons_dialog() {
  LessonsDialog dialog(this);
  if (dialog.exec() == QDialog::Accepted && !dialog.chosen().isEmpty()) open_lesson(dialog.chosen());
}

bool MainWindow::open_lesson(const QString& name_or_path, int64_t max_steps) {
  if (running() || sweeping()) {
    show_error("a run is training: stop it (Ctrl+.) or let it finish, then open the lesson.", "Cannot open the lesson:");
    return false;
  }
  Lesson lesson;
  LessonPlan plan;
  try {
    lesson = find_lesson(name_or_path.toStdString());
    plan = plan_lesson(lesson, max_steps);
  } catch (const ConfigError& e) {
    show_error(e.what(), "Cannot open the lesson:");
    return false;
  }
  if (!lesson_dock_) {
    lesson_dock_ = new QDockWidget("Lesson", this);
    lesson_dock_->setObjectName("lesson_dock");
    lesson_panel_ = new LessonPanel;
    lesson_dock_->setWidget(lesson_panel_);
    addDockWidget(Qt::RightDockWidgetArea, lesson_dock_);
    connect(lesson_panel_, &LessonPanel::run_requested, this, &MainWindow::start_lesson);
    connect(lesson_panel_, &LessonPanel::compare_requested, this, [this] {
      compare_->set_x_axis(lesson_axis(lesson_panel_->lesson()));
      compare_runs(lesson_dirs_);
    });
  }
  lesson_max_steps_ = max_steps;
  lesson_dirs_.clear();
  banner_->setVisible(false);
  lesson_panel_->show_lesson(lesson, plan.notes);
  lesson_dock_->setWindowTitle("Lesson: " + QString::fromStdString(lesson.title));
  lesson_dock_->show();
  lesson_dock_->raise();
  const std::vector<std::string> recorded = recorded_lesson_runs(default_runs_root(), lesson);
  if (recorded.empty()) {
    start_lesson();
    return true;
  }
  QStringList dirs;
  for (size_t i = 0; i < recorded.size(); ++i) {
    dirs << QString::fromStdString(recorded[i]);
    try {
      const RunRecord r = read_run(recorded[i]);
      lesson_run_ended(i, r.status, json_string(r.run, "message"));
    } catch (const DataError& e) {
      lesson_panel_->set_run_state(i, QString("cannot be read: %1").arg(e.what()), true);
    }
  }
  show_lesson_runs(dirs, QString("These runs were recorded %1. Run the lesson to train them again.").arg(recorded_when(recorded.front())));
  return true;
}

void MainWindow::start_lesson() {
  if (!lesson_panel_ || running() || sweeping()) return;
  const Lesson lesson = lesson_panel_->lesson();
  LessonPlan plan;
  try {
    plan = plan_lesson(lesson, lesson_max_steps_);
  } catch (const ConfigError& e) {
    show_error(e.what(), "Cannot run the lesson:");
    return;
  }
  lesson_panel_->show_lesson(lesson, plan.notes);
  lesson_panel_->set_source({});
  lesson_training_ = true;
  lesson_position_ = 0;
  lesson_dirs_.clear();
  compare_->set_x_axis(lesson_axis(lesson));
  views_->setCurrentIndex(0);
  launcher_->start_sweep(std::move(plan.points), lesson.scaling, current_config(), dataset_->dataset(), lesson.name);
  if (!sweeping()) lesson_training_ = false;  // refused: the banner says why
}

void MainWindow::show_lesson_runs(const QStringList& dirs, const QString& source) {
  lesson_dirs_ = dirs;
  lesson_panel_->set_source(dirs.isEmpty() ? QString() : source);
  if (dirs.isEmpty()) return;
  compare_->set_x_axis(lesson_axis(lesson_panel_->lesson()));
  comparison_only_ = true;  // the comparison is what the class looks at: the runs list folds away
  compare_runs(dirs);
}

bool MainWindow::lesson_failure_meant(size_t index, const std::string& message) const {
  const auto& runs = lesson_panel_->lesson().runs;
  return index < runs.size() && !runs[index].expect_failure.empty() &&
         message.find(runs[index].expect_failure) != std::string::npos;
}

void MainWindow::lesson_run_ended(size_t index, const std::string& status, const std::string& message) {
  const auto& runs = lesson_panel_->lesson().runs;
  if (index >= runs.size()) return;
  const std::string& expected = runs[index].expect_failure;
  const QString said = QString::fromStdString(message);
  if (status == "failed") {
    if (lesson_failure_meant(index, message))
      lesson_panel_->set_run_state(index, "failed, as the lesson means it to: " + said);
    else
      lesson_panel_->set_run_state(index, "failed: " + said, true);
  } else if (status == "finished" && !expected.empty()) {
    lesson_panel_->set_run_state(
        index, QString("finished, but the lesson expected it to fail (\"%1\")").arg(QString::fromStdString(expected)), true);
  } else {
    lesson_panel_->set_run_state(index, QString::fromStdString(status), status != "finished");
  }
}

}  // namespace mirror::ui
