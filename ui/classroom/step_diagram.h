#pragma once
// One mirrored step drawn as a diagram (StepDiagram), from the numbers of one step (StepPicture):
// the batch split into shards, each replica's phases as bars on the step's one clock (a late
// replica starts its wait late; the others' waits are hatched gaps), the all-reduce, the update
// and the sync check's checksums. The Strategy tab (strategy_view.h) plays it phase by phase.

#include <QPixmap>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/train/events.h"
#include "ui/widgets/timeline_bars.h"

class QPainter;

namespace mirror::ui {

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
  // The step on one clock. Several processes: it describes the step before (timeline.global_step),
  // and the diagram says so. Empty: the step has no timeline, and the bars are durations only.
  StepTimeline timeline;
  std::string communicator;
  int64_t parameters = 0;
  int64_t sync_step = 0;             // the last sync check; 0: none yet
  std::vector<uint64_t> checksums;   // each replica's, at that check
  bool sync_failed = false;          // that check failed (a checksum differs) and stopped the run
  // The replicas whose checksum differs from replica 0's, as numbers (as SyncError's own list).
  QStringList differing_replicas() const;
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
  // Where the diagram draws `phase` of replica `replica` (its place over all processes) at its
  // current size, in its coordinates; empty when the step has no timeline or the phase took no
  // time. The idle strip's `kind` span of `process`, and `process`'s cross-process exchange, likewise.
  QRectF bar_rect(int replica, TimelinePhase phase) const;
  QRectF idle_rect(int process, IdleKind kind) const;
  QRectF exchange_rect(int process) const;
  QSize sizeHint() const override { return {640, 420}; }
  // What one paint of the diagram costs, ms (a moving average): the view paces its frames by it.
  double paint_ms() const { return paint_ms_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  // Where the parts go at the current size and font.
  struct Layout {
    double left = 0, right = 0, line = 0;
    double band_top = 0, band_h = 0, examples_h = 0;
    double node_w = 0, node_left = 0, cards_right = 0;
    double lanes_top = 0, lane_h = 0, label_w = 0, bar_left = 0, bar_right = 0;
  };
  Layout layout() const;
  // A lane's bar: its top and height in card `r`.
  double bar_top(const Layout& l, int r) const;
  double bar_height(const Layout& l) const;
  // What the parts of one paint share (step_diagram_paint.cpp).
  struct Frame;
  void paint(QPainter& p);
  void paint_batch(QPainter& p, const Frame& f) const;             // 1. the global batch, split into shards
  void paint_replicas(QPainter& p, Frame& f) const;                // 2. the replicas' cards on the step's clock
  void paint_allreduce(QPainter& p, Frame& f) const;               // 3. where the gradients meet
  void paint_update_and_sync(QPainter& p, const Frame& f) const;   // 4. the update, 5. the sync check
  // How far the walk-through has drawn phase `ph`: 0 to 1; whether it has begun.
  double grown(StepPhase ph) const;
  bool reached(StepPhase ph) const;
  StepPicture picture_;
  StepPhase phase_ = StepPhase::kSyncCheck;
  double progress_ = 1.0;
  double paint_ms_ = 0;
};

// How the diagram and the Strategy tab's sentences write a step's numbers: a size in B, KiB or
// MiB; a checksum's first 8 hex digits.
QString bytes_text(double bytes);
QString checksum_text(uint64_t c);

}  // namespace mirror::ui
