#include "ui/window/quit_and_resume.h"

#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

#include "mirror/runs/run_reader.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/window/window_settings.h"

namespace mirror::ui {

QuitAndResume::QuitAndResume(QWidget* window, RunLauncher* launcher, WindowSettings* settings)
    : QObject(window), window_(window), launcher_(launcher), settings_(settings) {
  auto* frame = new QFrame;
  frame->setFrameShape(QFrame::StyledPanel);
  offer_ = frame;
  offer_->setObjectName("resume_offer");
  offer_->setVisible(false);
  offer_text_ = new QLabel;
  offer_text_->setWordWrap(true);
  auto* resume = new QPushButton("Resume");
  resume->setObjectName("resume_last");
  auto* dismiss = new QPushButton("Not now");
  dismiss->setObjectName("dismiss_last");
  auto* layout = new QHBoxLayout(offer_);
  layout->addWidget(offer_text_, 1);
  layout->addWidget(resume);
  layout->addWidget(dismiss);
  connect(resume, &QPushButton::clicked, this, [this] {
    offer_->setVisible(false);
    if (settings_) Q_EMIT resume_requested(settings_->last_run());
  });
  connect(dismiss, &QPushButton::clicked, this, [this] {
    offer_->setVisible(false);
    if (settings_) settings_->save_last_run({});  // the Runs page still lists it
  });

  connect(launcher_, &RunLauncher::run_begun, this, [this] {
    offer_->setVisible(false);
    // Until it ends by itself, this is the run to offer when the window opens next.
    if (settings_ && !launcher_->run_dir().isEmpty()) settings_->save_last_run(launcher_->run_dir());
  });
  connect(launcher_->live(), &LiveRun::run_finished, this, [this](const RunFinished& e) {
    if (settings_ && e.status != RunStatus::kStopped) settings_->save_last_run({});
    if (quit_when_done_ && !launcher_->sweeping()) close_by_itself();
  });
  connect(launcher_, &RunLauncher::sweep_finished, this, [this] {
    if (quit_when_done_) close_by_itself();
  });
}

void QuitAndResume::offer_last_run() {
  offer_->setVisible(false);
  const QString dir = settings_ ? settings_->last_run() : QString();
  if (dir.isEmpty()) return;
  RunRecord r;
  try {
    r = read_run(dir.toStdString());
  } catch (const std::exception&) {  // deleted or moved since: nothing to offer
    settings_->save_last_run({});
    return;
  }
  if (r.status != "stopped" && r.status != "interrupted") {
    settings_->save_last_run({});
    return;
  }
  const QString where = r.steps.empty() ? QString("before its first step")
                                        : QString("after step %1 (epoch %2 of %3)")
                                              .arg(r.steps.back().global_step)
                                              .arg(r.steps.back().epoch)
                                              .arg(r.planned_epochs());
  offer_text_->setText(QString("Last time, run <b>%1</b> %2 %3. Resume it where it left off?")
                           .arg(QString::fromStdString(r.display_name()).toHtmlEscaped(),
                                r.status == "stopped" ? "was stopped" : "was cut short (the window closed or was killed)",
                                where));
  offer_->setVisible(true);
}

bool QuitAndResume::may_close() {
  if (!launcher_->running() || closing_by_itself_) return true;
  // The run holds while the question is open (it trained on behind the dialog), then goes on as
  // it was unless it is stopped.
  TrainingController* controller = launcher_->controller();
  const bool was_paused = controller->paused();
  controller->set_paused(true);
  const QuitChoice choice = ask();  // the run may end while the question is open
  if (choice != QuitChoice::kStopAndQuit) controller->set_paused(was_paused);
  if (choice == QuitChoice::kKeepTraining) return false;
  if (choice == QuitChoice::kQuitWhenDone && launcher_->running()) {
    quit_when_done_ = true;
    Q_EMIT status("The window closes when training ends.");
    return false;
  }
  return true;
}

QuitChoice QuitAndResume::ask() {
  if (choose_) return choose_();
  QMessageBox box(QMessageBox::Question, "Quit during training",
                  launcher_->sweeping() ? "A sweep is training. Quit now?" : "A run is training. Quit now?",
                  QMessageBox::NoButton, window_);
  box.setInformativeText("Stopping keeps the run: the next time the window opens it offers to resume it, "
                         "and the Runs page can resume it any time.");
  auto* stop = box.addButton("Stop and quit", QMessageBox::DestructiveRole);
  auto* later = box.addButton("Quit when it finishes", QMessageBox::AcceptRole);
  auto* keep = box.addButton("Keep training", QMessageBox::RejectRole);
  box.setDefaultButton(keep);
  box.setEscapeButton(keep);
  box.exec();
  if (box.clickedButton() == stop) return QuitChoice::kStopAndQuit;
  if (box.clickedButton() == later) return QuitChoice::kQuitWhenDone;
  return QuitChoice::kKeepTraining;
}

void QuitAndResume::close_by_itself() {
  // From the event loop, once everyone has seen the run end; asked for already, so not asked again.
  QTimer::singleShot(0, this, [this] {
    closing_by_itself_ = true;
    if (!window_->close()) closing_by_itself_ = false;
  });
}

}  // namespace mirror::ui
