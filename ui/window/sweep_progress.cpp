#include "ui/window/sweep_progress.h"

#include "ui/run/run_launcher.h"

namespace mirror::ui {

SweepProgress::SweepProgress(RunLauncher* launcher, QWidget* parent) : QLabel(parent) {
  setObjectName("sweep_progress");
  setTextFormat(Qt::PlainText);  // a point's label may come from a lesson file
  setToolTip("Which of the sweep's runs is training");
  hide();
  connect(launcher, &RunLauncher::run_begun, this, [this, launcher] {
    const int at = launcher->sweep_position(), of = launcher->sweep_size();
    const bool on = launcher->sweeping() && at > 0;
    setVisible(on);
    if (!on) return;
    const QString label = launcher->sweep_label();
    setText(QString("Run %1 of %2").arg(at).arg(of) + (label.isEmpty() ? QString() : ": " + label));
  });
  connect(launcher, &RunLauncher::sweep_finished, this, [this] { hide(); });
}

}  // namespace mirror::ui
