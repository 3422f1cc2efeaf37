#pragma once
// One step's timeline (mirror/strategy/step_timeline.h) drawn as bars on its one clock. Each
// replica: its shard copy, forward, backward, its wait at the all-reduce (from its gradients
// being ready to the moment the last replica arrived: a hatched gap), the all-reduce itself and
// the update. Each process of several: its cross-process exchange. The time before the step that
// was not training (a pace wait, a pause, a validation) is its own hatched span in a strip left of
// the clock, drawn not to scale (a pace wait can be a hundred steps long), never as compute or
// all-reduce. The Strategy tab and the Live page's replica view both draw with this, so they show
// the same straggler and the same waits. GUI thread only.

#include <QColor>
#include <QRectF>
#include <QString>

#include <cstddef>

#include "mirror/strategy/step_timeline.h"

class QPainter;

namespace mirror::ui {

enum class TimelinePhase { kCopy, kForward, kBackward, kWait, kAllReduce, kUpdate };
inline constexpr int kTimelinePhases = 6;
// "copy", "forward", "backward", "waiting", "all-reduce", "update".
QString timeline_phase_name(TimelinePhase phase);
QColor timeline_phase_color(TimelinePhase phase);
// The colour of a span that is not training (pace, pause, evaluation).
QColor idle_color(IdleKind kind);

// A stretch of the step's clock, ms.
struct ClockSpan {
  double begin = 0;
  double end = 0;
  double ms() const { return end - begin; }
};

// The moment the last replica entered the all-reduce (0 for an empty timeline).
double last_arrival_ms(const StepTimeline& t);
// When `phase` of t.replicas[index] begins and ends. kWait: from its gradients_ready to the last
// arrival (empty for the last to arrive); kAllReduce: from then to its reduced.
ClockSpan phase_span(const StepTimeline& t, size_t index, TimelinePhase phase);
// Process `process`'s cross-process exchange on the step's clock (its offset added); empty when
// the run has one process.
ClockSpan exchange_span(const StepTimeline& t, int process);
// Its buckets all-reduced during backward (--overlap); empty when none were.
ClockSpan overlap_span(const StepTimeline& t, int process);
// The idle time before the step of `process`, ms, summed per kind (kPace, kPause, kEvaluation).
double idle_ms(const StepTimeline& t, int process, IdleKind kind);
bool has_idle(const StepTimeline& t);

// Where the bars go across [left, right]: an idle strip at the left when the step has idle
// spans, then the clock from 0 to the step's end.
class TimelineScale {
 public:
  TimelineScale() = default;
  TimelineScale(const StepTimeline& t, double left, double right);
  double x(double ms) const { return clock_left_ + (ms - clock_begin_) * px_per_ms_; }
  double clock_left() const { return clock_left_; }
  double right() const { return right_; }
  double px_per_ms() const { return px_per_ms_; }
  // The idle strip's horizontal extent (left, width); width 0 when there is none.
  double idle_left() const { return left_; }
  double idle_width() const { return idle_w_; }

 private:
  double left_ = 0, right_ = 0, idle_w_ = 0, clock_left_ = 0, clock_begin_ = 0, px_per_ms_ = 0;
};

// The rectangle of `phase` of t.replicas[index] in a lane from `top`, `height` tall; an empty
// rectangle (width 0) where the phase took no time.
QRectF phase_rect(const TimelineScale& s, const StepTimeline& t, size_t index, TimelinePhase phase, double top,
                  double height);
// The rectangle of idle kind `kind` of `process` in the idle strip; empty when none.
QRectF idle_rect(const TimelineScale& s, const StepTimeline& t, int process, IdleKind kind, double top, double height);

// Beside a replica's lane: when on the step's clock its gradients were ready, "gradients at 0.81 ms"
// ("ready 0.81 ms" read like the step's finish). gradients_at_label(0) sizes the room it needs.
inline QString gradients_at_label(double ms) {
  return ms > 0 ? QString("gradients at %1 ms").arg(ms, 0, 'f', 2) : QString("gradients at 000.00 ms");
}

// Draws t.replicas[index]'s lane: its idle strip, then its phases up to `until_ms` on the clock
// (a walk-through reveals the step in order; infinity: all). Labels a segment with its time
// where it fits.
void paint_replica_lane(QPainter& p, const TimelineScale& s, const StepTimeline& t, size_t index, double top,
                        double height, double until_ms);
// Draws `process`'s exchange as a bar from `top`, and its buckets' all-reduce during backward
// hatched in the same colour where there was one.
void paint_exchange(QPainter& p, const TimelineScale& s, const StepTimeline& t, int process, double top, double height);
void paint_arrival_line(QPainter& p, const TimelineScale& s, const StepTimeline& t, double top, double bottom);
// A legend of the phases (and the idle kinds the step has) in one row from `at`; returns its height.
double paint_timeline_legend(QPainter& p, const StepTimeline& t, QPointF at, double width, const QColor& text);

}  // namespace mirror::ui
