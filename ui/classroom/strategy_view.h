#pragma once
// The Strategy tab: one mirrored step of the current run drawn from its measured numbers. The
// global batch splits into shards, each replica runs forward and backward on its own (its
// measured time as a bar), the gradients meet in the all-reduce (the communicator, the bytes each
// replica sends, who waited for whom), the same update lands on every copy, and the sync check
// shows each replica's parameter checksum. Live, it replays a recent step phase by phase (at most
// 30 frames a second, only while shown); paused, it holds; step by step, the run holds between
// steps and Space takes exactly one, which the view then walks through, one sentence per phase.

#include <QPixmap>
#include <QElapsedTimer>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirror/train/events.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTimer;

namespace mirror {
class Dataset;
}

class QPainter;

namespace mirror::ui {

class LiveRun;
class TrainingController;

// One example of a replica's shard, as the diagram shows it.
struct ShardExample {
  int64_t index = 0;         // in the training split
  int64_t label = 0;
  QString name;              // the class's display name
  QPixmap picture;           // image examples
  QString words;             // token examples: the decoded text
  std::vector<float> point;  // 2-D points: (x, y)
};

// The numbers one drawing of the step needs, taken from the run when a replay begins.
struct StepPicture {
  int64_t global_step = 0;
  int64_t global_batch = 0;
  std::vector<std::string> devices;  // one per replica
  std::vector<ReplicaTiming> replicas;
  std::string communicator;
  int64_t parameters = 0;
  int64_t sync_step = 0;             // the last sync check; 0: none yet
  std::vector<uint64_t> checksums;   // each replica's, at that check
  // The first examples of each replica's shard, when the window holds the run's dataset; empty
  // otherwise.
  std::vector<std::vector<ShardExample>> shard_examples;
};

// The replicas of each worker process, from device names as several processes report them
// ("rank 1 cpu:0"): {process, first replica, replicas}, in replica order. Empty when one process
// trains (names without "rank ").
struct ProcessGroup {
  int process = 0;
  int first = 0;
  int count = 0;
};
std::vector<ProcessGroup> process_groups(const std::vector<std::string>& devices);

// The five phases of a mirrored step, in order.
enum class StepPhase { kSplit, kCompute, kAllReduce, kUpdate, kSyncCheck };
inline constexpr int kStepPhases = 5;

// The step drawn as a diagram, with the phases up to `phase` shown (the current one `progress`
// of the way through).
class StepDiagram : public QWidget {
  Q_OBJECT
 public:
  explicit StepDiagram(QWidget* parent = nullptr);
  void set_picture(const StepPicture& picture);
  void set_phase(StepPhase phase, double progress);
  const StepPicture& picture() const { return picture_; }
  QSize sizeHint() const override { return {640, 420}; }
  // What one paint of the diagram costs, ms (a moving average): the view paces its frames by it.
  double paint_ms() const { return paint_ms_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  void paint(QPainter& p);
  StepPicture picture_;
  StepPhase phase_ = StepPhase::kSyncCheck;
  double progress_ = 1.0;
  double paint_ms_ = 0;
};

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

  StepDiagram* diagram() const { return diagram_; }
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
  QTimer* timer_;
  Mode mode_ = Mode::kLive;
  StepPhase phase_ = StepPhase::kSyncCheck;
  double phase_ms_ = 0;          // time spent in the current phase of the replay
  QElapsedTimer since_tick_;     // wall time since the last frame: the replay's pace is the clock's
  int64_t walked_step_ = 0;      // step by step: the step last walked through
  bool walking_ = false;         // a replay is going (live: always; step by step: once per step)
};

}  // namespace mirror::ui
