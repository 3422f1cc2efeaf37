#pragma once
// Closing the window during a run, and coming back to it: the question a close asks while a run
// trains (stop and quit, quit when it finishes, keep training), the window closing by itself once
// training ends when so asked, and, when the window opens, the offer "Last time, run X was
// stopped…  Resume / Not now" for the run a closed or killed window left behind.

#include <QObject>
#include <QString>

#include <functional>

class QLabel;
class QWidget;

namespace mirror::ui {

class RunLauncher;
class WindowSettings;

// What closing the window during a run does.
enum class QuitChoice {
  kStopAndQuit,    // stop after the current step (the run stays resumable) and close
  kQuitWhenDone,   // close when the run (or sweep) ends by itself
  kKeepTraining,   // do not close
};

class QuitAndResume : public QObject {
  Q_OBJECT
 public:
  // `window` is the one asked over and closed; `launcher` runs its training; `settings` keeps
  // the run to offer (null: nothing is offered or remembered). All three outlive this object,
  // which follows the launcher's runs from here on. GUI thread only.
  QuitAndResume(QWidget* window, RunLauncher* launcher, WindowSettings* settings);

  // The offer, hidden until offer_last_run() finds a run to offer; the window lays it out.
  QWidget* offer() const { return offer_; }
  // Shows the offer for the run the settings name when it was stopped or cut short; otherwise
  // forgets that run (it ended by itself, or was deleted or moved since).
  void offer_last_run();

  // Answers the quit question without asking (tests); nullptr: ask with a dialog.
  void set_choice(std::function<QuitChoice()> choose) { choose_ = std::move(choose); }
  // For the window's closeEvent: whether it may close now. During a run (unless closing by itself
  // after "Quit when it finishes") it asks; false when the answer keeps the window open.
  bool may_close();

 Q_SIGNALS:
  // "Resume" was clicked on the offer for the run in `dir`.
  void resume_requested(const QString& dir);
  // A line for the status bar ("The window closes when training ends.").
  void status(const QString& text);

 private:
  QuitChoice ask();
  // Closes the window, from the event loop, once everyone has seen training end.
  void close_by_itself();

  QWidget* window_;
  RunLauncher* launcher_;
  WindowSettings* settings_;
  QWidget* offer_;
  QLabel* offer_text_;
  std::function<QuitChoice()> choose_;
  bool quit_when_done_ = false;
  bool closing_by_itself_ = false;
};

}  // namespace mirror::ui
