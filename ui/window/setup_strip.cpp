// The setup strip: when the settings fold away (a run, a lesson, a room) and the one line that
// says what trains, or what would, in their place.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

#include <algorithm>

#include "mirror/runs/lesson.h"
#include "mirror/train/config.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/run_launcher.h"
#include "ui/setup/setup_tabs.h"
#include "ui/widgets/plain_text.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "ui/window/presentation.h"

namespace mirror::ui {

namespace {
// The settings in one line: "spirals-mlp · blobs · adam, lr 0.01 · batch 64 · 2 logical cpu devices".
QString setup_summary(const TrainConfig& c) {
  QStringList parts;
  if (!c.preset.empty()) parts << QString::fromStdString(c.preset);
  parts << QString::fromStdString(c.dataset.name);
  parts << QString("%1, lr %2").arg(QString::fromStdString(c.optimizer.name)).arg(c.optimizer.effective_learning_rate(), 0, 'g', 3);
  parts << QString("batch %1").arg(c.batch_size);
  parts << QString("%1 logical %2 device%3")
               .arg(c.devices.logical)
               .arg(QString::fromStdString(c.devices.devices))
               .arg(c.devices.logical == 1 ? "" : "s");
  return parts.join(" \u00b7 ");
}
}  // namespace

void MainWindow::fold_setup() {
  if (!presentation_) return;  // still being built
  const bool presenting = presentation_->presentation_action()->isChecked();
  const bool projector = presentation_->projector_action()->isChecked();
  const bool lesson = lessons_->dock() && !lessons_->dock()->isHidden();
  const bool busy = launcher_->running() || launcher_->sweeping();
  // Projector mode is for a room: the pages keep the width until the teacher unfolds the settings.
  const bool room = busy || lesson || projector;
  if (!room) setup_unfolded_ = false;  // the next run or lesson folds them again
  setup_->setVisible(!presenting && (!room || setup_unfolded_));
  const bool strip = !presenting && room;
  // Hidden, the strip leaves the pages' corner: the tab widget kept a hidden corner widget's width,
  // and a lesson's pages in a presentation scrolled their tabs beside an empty space.
  if (strip != (views_->cornerWidget(Qt::TopRightCorner) == setup_strip_))
    views_->setCornerWidget(strip ? setup_strip_ : nullptr, Qt::TopRightCorner);
  setup_strip_->setVisible(strip);
  setup_toggle_->setText(setup_unfolded_ ? "\u25C2 Settings" : "Settings \u25B8");
  // Unfolded, the tabs say it all: the summary would only crowd the pages' tabs into scrolling.
  setup_summary_->setVisible(!setup_->isVisibleTo(this));
  if (!setup_strip_->isVisibleTo(this) || !setup_summary_->isVisibleTo(this)) return;
  // What trains, or what would: a sweep's or lesson's run says which of how many it is and shows
  // its own settings, not the panels'; an open lesson names itself and its runs.
  QString summary;
  const TrainConfig* run_config = launcher_->run_config();
  if (busy && run_config) {
    summary = setup_summary(*run_config);
    if (launcher_->sweeping())
      summary = QString("run %1 of %2: %3 \u00b7 ")
                    .arg(launcher_->sweep_position())
                    .arg(launcher_->sweep_size())
                    .arg(launcher_->sweep_label()) + summary;
  } else if (lesson && lessons_->panel()) {
    const Lesson& l = lessons_->panel()->lesson();
    QStringList labels;
    for (const LessonRun& r : l.runs) labels << QString::fromStdString(r.label);
    summary = QString("Lesson \u201c%1\u201d: %2").arg(QString::fromStdString(l.title), labels.join(" \u00b7 "));
  } else {
    summary = setup_summary(current_config());
  }
  if (lessons_->training())  // a lesson's run, not a run started beside an open lesson
    summary = QString("Lesson \u201c%1\u201d, ").arg(QString::fromStdString(lessons_->panel()->lesson().title)) + summary;
  // Whole parts dropped from its end to fit at most a third of the window and what the pages'
  // tabs leave (a lesson's dock beside them in projector type), none under 60 px; whole in its
  // tooltip. (Elided in the middle, it read "adam, lr 0…".)
  const int left = views_->width() - views_->tabBar()->sizeHint().width() - setup_toggle_->sizeHint().width() - 24;
  const int most = std::min(std::max(200, width() / 3), left);
  setup_summary_->setText(most < 60 ? QString() : elided_parts(summary, " \u00b7 ", setup_summary_->fontMetrics(), most));
  setup_summary_->setToolTip(literal(summary));  // a lesson's title and labels come from its file
}

}  // namespace mirror::ui
