#pragma once
// The Strategy tab: one mirrored step of the current run drawn from its measured numbers. The
// global batch splits into shards, each replica runs forward and backward on its own (its
// measured time as a bar), the gradients meet in the all-reduce (the communicator, the bytes each
// replica sends, who waited for whom), the same update lands on every copy, and the sync check
// shows each replica's parameter checksum. The replicas' bars are on the step's one clock (a late
// replica starts its wait late), and the sentence names the replica that arrived last from the
// same numbers. Export trace… writes the steps it holds for Perfetto. Live, it replays a recent step phase by phase (at most
// 30 frames a second, only while shown); paused, it holds; step by step, the run holds between
// steps and Space takes exactly one, which the view then walks through, one sentence per phase.

#include <QElapsedTimer>
#include <QWidget>

#include <cstdint>
#include <memory>

#include "mirror/train/events.h"
#include "ui/classroom/step_diagram.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTimer;

namespace mirror {
class Dataset;
}

namespace mirror::ui {

class LiveRun;
class TrainingController;

class StrategyView : public QWidget {
  Q_OBJECT
 public:
  enum class Mode { kLive, kPaused, kStepByStep };

  // Follows `run`; steps a paused run through `controller` (neither owned).
  StrategyView(LiveRun* run, TrainingController* controller, QWidget* parent = nullptr);

  // The dataset loaded in the window: a run trained on it shows its shards' first examples
  // (pictures, words or points). Other runs show shard sizes only.
  void set_dataset(std::shared_ptr<const Dataset> dataset) { dataset_ = std::move(dataset); }

  void set_mode(Mode mode);
  Mode mode() const { return mode_; }
  // Step by step: asks the run for exactly one more step (Space does this too).
  void next_step();
  // The sentence for a phase of the shown step (the status line under the diagram).
  QString explain(StepPhase phase) const;

  // Writes the steps the view holds (the run's last ones, each on its clock) as a Chrome trace to
  // `path` (mirror/runs/trace.h); returns the sentence that says what was written or why not.
  // The Export trace… button asks for the path and calls this.
  QString export_trace(const QString& path);

  StepDiagram* diagram() const { return diagram_; }
  QPushButton* export_button() const { return export_; }
  QLabel* phase_line() const { return phase_line_; }
  QComboBox* mode_choice() const { return mode_choice_; }
  QPushButton* next_button() const { return next_; }
  StepPhase phase() const { return phase_; }

 Q_SIGNALS:
  // Step by step needs the run held between steps: the window's Pause follows this.
  void pause_wanted(bool paused);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void changeEvent(QEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  StepPicture take_picture(const StepMetrics& step) const;
  void on_frame();
  void tick();
  void show_phase(StepPhase phase, double progress);
  void update_timer();
  // The phase sentence a little larger than the view's font, whatever that is.
  void fit_phase_font();

  LiveRun* run_;
  TrainingController* controller_;
  std::shared_ptr<const Dataset> dataset_;
  StepDiagram* diagram_;
  QLabel* phase_line_;
  QComboBox* mode_choice_;
  QPushButton* next_;
  QPushButton* export_;
  QTimer* timer_;
  Mode mode_ = Mode::kLive;
  StepPhase phase_ = StepPhase::kSyncCheck;
  double phase_ms_ = 0;          // time spent in the current phase of the replay
  QElapsedTimer since_tick_;     // wall time since the last frame: the replay's pace is the clock's
  int64_t walked_step_ = 0;      // step by step: the step last walked through
  bool walking_ = false;         // a replay is going (live: always; step by step: once per step)
};

}  // namespace mirror::ui
