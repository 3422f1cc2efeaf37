#pragma once
// One mirrored step drawn as a diagram (StepDiagram), from the numbers of one step (StepPicture):
// the batch split into shards, each replica's measured times, the all-reduce, the update and the
// sync check's checksums. The Strategy tab (strategy_view.h) plays it phase by phase.

#include <QPixmap>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/train/events.h"

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

// How the diagram and the Strategy tab's sentences write a step's numbers: a size in B, KiB or
// MiB; a checksum's first 8 hex digits; the replica the others waited for in the all-reduce (the
// one that spent the least time in it finished computing last), -1 for none.
QString bytes_text(double bytes);
QString checksum_text(uint64_t c);
int slowest_replica(const std::vector<ReplicaTiming>& t);

}  // namespace mirror::ui
