#pragma once
// The window's status bar: a line saying what the run is doing and how it ended, why Train is
// disabled (in red), and the epoch's progress. A line too long for the window is elided, whole in
// its tooltip; both are drawn as plain text (they quote folders and messages).

#include <QObject>
#include <QString>

class QLabel;
class QProgressBar;
class QStatusBar;

namespace mirror {
struct RunFinished;
struct RunStarted;
}  // namespace mirror

namespace mirror::ui {

class LiveRun;

// Where a sweep (or a lesson, or a scaling study) is: its run `at` of `of` (1-based); 0 of 0
// outside one.
struct SweepAt {
  int at = 0, of = 0;
};

class StatusLine : public QObject {
 public:
  // Fills `bar`, which owns the widgets (and this). GUI thread only.
  explicit StatusLine(QStatusBar* bar);

  // What the run is doing ("Ready.", "Epoch 2/5 · step 10/40 · …"); anyone may say something here.
  QLabel* line() const { return line_; }
  // "Cannot train: …", or empty.
  QLabel* blocked() const { return blocked_; }
  // Sizes the progress bar to the application's font (after a theme or projector change).
  void fit();

  void show_started(const RunStarted& e);
  // `live`'s newest step: epoch, step, throughput and time left while it trains, and the progress:
  // of the epoch; of the run when a step limit ends it sooner; of the sweep while one trains.
  // `planned_epochs` counts for a run that does not say its own.
  void show_step(const LiveRun& live, int planned_epochs, bool paused, SweepAt sweep = {});
  // How the run ended, in `live`'s numbers (steps, training time and rate of this session, time
  // waiting for the pace and paused); `run_dir` is where it was recorded (empty: it was not).
  void show_finished(const RunFinished& e, const LiveRun& live, const QString& run_dir);
  void show_sweep_finished(int done, int total, bool cancelled);

 private:
  QLabel* line_;
  QLabel* blocked_;
  QProgressBar* progress_;
  SweepAt sweep_;  // the last show_step's
};

}  // namespace mirror::ui
