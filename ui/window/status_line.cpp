#include "ui/window/status_line.h"

#include <QApplication>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>

#include <algorithm>

#include "mirror/train/events.h"
#include "mirror/train/progress.h"
#include "mirror/util/words.h"
#include "ui/run/live_run.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
QString clock(double seconds) { return QString::fromStdString(clock_text(seconds)); }

QString words(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

StatusLine::StatusLine(QStatusBar* bar) : QObject(bar) {
  blocked_ = new ElidedLabel;
  QPalette red = blocked_->palette();
  red.setColor(QPalette::WindowText, QColor("#c0392b"));
  blocked_->setPalette(red);
  line_ = new ElidedLabel("Ready.");
  progress_ = new QProgressBar;
  progress_->setFormat("epoch %p%");
  bar->addWidget(line_, 1);
  bar->addPermanentWidget(blocked_);
  bar->addPermanentWidget(progress_);
  fit();
}

void StatusLine::fit() {
  // The progress bar's text fits the font; the status line is elided (whole text in its tooltip).
  const int width = QFontMetrics(QApplication::font()).horizontalAdvance("epoch 100%") + 90;
  progress_->setMinimumWidth(width);
  progress_->setMaximumWidth(width);
}

void StatusLine::show_started(const RunStarted& e) {
  line_->setText(QString("Training on %1…").arg(words(counted(static_cast<int64_t>(e.devices.size()), "replica"))));
}

void StatusLine::show_step(const LiveRun& live, int planned_epochs, bool paused, SweepAt sweep) {
  const StepMetrics& step = live.last_step();
  const int epochs = live.started().epochs > 0 ? live.started().epochs : planned_epochs;  // a resumed run has its own
  // The rate is of training (pace waits and pauses are not); the time left follows the pace.
  const double pace = live.pace();
  const QString rate = QString::fromStdString(whole_number_text(live.recent_samples_per_sec())) + " samples/s" +
                       (pace > 0 ? QString(" while training, paced at %1 steps/s").arg(pace, 0, 'g', 3) : QString());
  if (live.running())
    line_->setText(QString("Epoch %1/%2 · step %3/%4 · %5 · ETA %6%7")
                       .arg(step.epoch).arg(epochs).arg(step.step).arg(step.steps_per_epoch)
                       .arg(rate).arg(clock(live.eta_seconds(epochs)))
                       .arg(paused ? " · paused" : ""));
  // The bar: of the sweep while one trains (its runs done, and this one's share), else of the run
  // when its step limit comes before the epochs end, else of the epoch.
  const int64_t total = std::max<int64_t>(1, live.total_steps(epochs));
  const bool limited = total < step.steps_per_epoch * epochs;
  sweep_ = sweep;
  const double run_done = std::clamp(static_cast<double>(step.global_step) / static_cast<double>(total), 0.0, 1.0);
  if (sweep.of > 0) {
    progress_->setFormat(QString("run %1 of %2 · %p%").arg(sweep.at).arg(sweep.of));
    progress_->setValue(static_cast<int>(100 * (sweep.at - 1 + run_done) / sweep.of));
  } else if (limited) {
    progress_->setFormat("run %p%");
    progress_->setValue(static_cast<int>(100 * run_done));
  } else {
    progress_->setFormat("epoch %p%");
    progress_->setValue(static_cast<int>(100 * step.step / std::max<int64_t>(1, step.steps_per_epoch)));
  }
}

void StatusLine::show_finished(const RunFinished& e, const LiveRun& live, const QString& run_dir) {
  switch (e.status) {
    case RunStatus::kFinished:
      // It ended where it was meant to (a step limit may end it mid-epoch): its share is whole.
      progress_->setValue(sweep_.of > 0 ? 100 * sweep_.at / sweep_.of : 100);
      line_->setText(QString("Finished: %1.%2")
                         .arg(QString::fromStdString(progress_summary(live.progress(), e.steps)))
                         .arg(run_dir.isEmpty() ? QString() : " Recorded in " + run_dir));
      break;
    case RunStatus::kStopped:
      line_->setText(QString("Stopped after %1 steps.").arg(e.steps));
      break;
    case RunStatus::kFailed:
      line_->setText("The run failed.");
      break;
  }
}

void StatusLine::show_sweep_finished(int done, int total, bool cancelled) {
  sweep_ = {};
  if (!cancelled) progress_->setValue(100);  // it stayed at the last run's share, 42-90%
  line_->setText(cancelled ? QString("Sweep stopped after %1 of %2.").arg(done).arg(words(counted(total, "run")))
                           : QString("Sweep done: %1, compared on the Runs page.").arg(words(counted(done, "run"))));
}

}  // namespace mirror::ui
