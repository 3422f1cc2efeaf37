#include "ui/widgets/timeline_bars.h"

#include <QBrush>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace mirror::ui {

namespace {
constexpr double kIdleShare = 0.16;  // of the bars' width, for the idle strip when there is one
constexpr IdleKind kIdleKinds[] = {IdleKind::kPace, IdleKind::kPause, IdleKind::kEvaluation};

QString ms_label(double ms) {
  if (ms >= 100) return QString("%1 ms").arg(ms, 0, 'f', 0);
  if (ms >= 10) return QString("%1 ms").arg(ms, 0, 'f', 1);
  return QString("%1 ms").arg(ms, 0, 'f', 2);
}
}  // namespace

QString timeline_phase_name(TimelinePhase phase) {
  switch (phase) {
    case TimelinePhase::kCopy: return "copy";
    case TimelinePhase::kForward: return "forward";
    case TimelinePhase::kBackward: return "backward";
    case TimelinePhase::kWait: return "waiting";
    case TimelinePhase::kAllReduce: return "all-reduce";
    case TimelinePhase::kUpdate: return "update";
  }
  return {};
}

QColor timeline_phase_color(TimelinePhase phase) {
  switch (phase) {
    case TimelinePhase::kCopy: return {148, 103, 189};
    case TimelinePhase::kForward: return {31, 119, 180};
    case TimelinePhase::kBackward: return {23, 190, 207};
    case TimelinePhase::kWait: return {255, 127, 14};   // drawn hatched: a gap, not work
    case TimelinePhase::kAllReduce: return {255, 127, 14};
    case TimelinePhase::kUpdate: return {44, 160, 44};
  }
  return Qt::gray;
}

QColor idle_color(IdleKind kind) {
  switch (kind) {
    case IdleKind::kPace: return {140, 140, 140};
    case IdleKind::kPause: return {110, 110, 160};
    case IdleKind::kEvaluation: return {188, 150, 34};
  }
  return Qt::gray;
}

double last_arrival_ms(const StepTimeline& t) {
  const int last = t.last_to_arrive();
  return last < 0 ? 0 : t.replicas[static_cast<size_t>(last)].gradients_ready;
}

ClockSpan phase_span(const StepTimeline& t, size_t index, TimelinePhase phase) {
  if (index >= t.replicas.size()) return {};
  const ReplicaMarks& r = t.replicas[index];
  // Marks out of order (a clock that stepped) give empty spans rather than negative ones.
  const auto span = [](double a, double b) { return ClockSpan{a, std::max(a, b)}; };
  const double arrival = std::clamp(last_arrival_ms(t), r.gradients_ready, std::max(r.gradients_ready, r.reduced));
  switch (phase) {
    case TimelinePhase::kCopy: return span(r.started, r.copied);
    case TimelinePhase::kForward: return span(r.copied, r.forward_done);
    case TimelinePhase::kBackward: return span(r.forward_done, r.gradients_ready);
    case TimelinePhase::kWait: return span(r.gradients_ready, arrival);
    case TimelinePhase::kAllReduce: return span(arrival, r.reduced);
    case TimelinePhase::kUpdate: return span(r.reduced, r.updated);
  }
  return {};
}

ClockSpan exchange_span(const StepTimeline& t, int process) {
  for (const auto& p : t.processes)
    if (p.process == process && p.exchange_end > p.exchange_begin)
      return {p.exchange_begin, p.exchange_end};  // already on the reporting clock
  return {};
}

ClockSpan overlap_span(const StepTimeline& t, int process) {
  for (const auto& p : t.processes)
    if (p.process == process && p.overlap_end > p.overlap_begin) return {p.overlap_begin, p.overlap_end};
  return {};
}

double idle_ms(const StepTimeline& t, int process, IdleKind kind) {
  double ms = 0;
  for (const auto& s : t.idle)
    if (s.process == process && s.kind == kind) ms += std::max(0.0, s.end - s.begin);
  return ms;
}

bool has_idle(const StepTimeline& t) {
  return std::any_of(t.idle.begin(), t.idle.end(), [](const IdleSpan& s) { return s.end > s.begin; });
}

TimelineScale::TimelineScale(const StepTimeline& t, double left, double right) : left_(left), right_(right) {
  idle_w_ = has_idle(t) ? kIdleShare * (right - left) : 0;
  clock_left_ = left + idle_w_ + (idle_w_ > 0 ? 6 : 0);
  clock_begin_ = 0;
  for (const auto& r : t.replicas) clock_begin_ = std::min(clock_begin_, r.started);
  const double span = t.end_ms() - clock_begin_;
  px_per_ms_ = span > 0 ? std::max(0.0, right - clock_left_) / span : 0;
}

QRectF phase_rect(const TimelineScale& s, const StepTimeline& t, size_t index, TimelinePhase phase, double top,
                  double height) {
  const ClockSpan c = phase_span(t, index, phase);
  const double x0 = s.x(c.begin), x1 = s.x(c.end);
  return {x0, top, std::max(0.0, x1 - x0), height};
}

QRectF idle_rect(const TimelineScale& s, const StepTimeline& t, int process, IdleKind kind, double top, double height) {
  // The strip is shared by the kinds this process has, in proportion to their times.
  double total = 0;
  for (IdleKind k : kIdleKinds) total += idle_ms(t, process, k);
  const double mine = idle_ms(t, process, kind);
  if (s.idle_width() <= 0 || total <= 0 || mine <= 0) return {};
  double x = s.idle_left();
  for (IdleKind k : kIdleKinds) {
    const double w = s.idle_width() * idle_ms(t, process, k) / total;
    if (k == kind) return {x, top, w, height};
    x += w;
  }
  return {};
}

void paint_replica_lane(QPainter& p, const TimelineScale& s, const StepTimeline& t, size_t index, double top,
                        double height, double until_ms) {
  if (index >= t.replicas.size()) return;
  const QFontMetrics fm = p.fontMetrics();
  const int process = t.replicas[index].process;
  // What the process did before the step that was not training: hatched, named, not to scale.
  for (IdleKind k : kIdleKinds) {
    const QRectF r = idle_rect(s, t, process, k, top, height);
    if (r.width() <= 0) continue;
    p.fillRect(r, idle_color(k).lighter(160));
    p.fillRect(r, QBrush(idle_color(k), Qt::BDiagPattern));
    const QString name = QString("%1 %2").arg(idle_kind_name(k)).arg(ms_label(idle_ms(t, process, k)));
    p.setPen(QColor(30, 30, 30));
    if (fm.horizontalAdvance(name) + 4 <= r.width()) p.drawText(r, Qt::AlignCenter, name);
    else if (fm.horizontalAdvance(idle_kind_name(k)) + 4 <= r.width()) p.drawText(r, Qt::AlignCenter, idle_kind_name(k));
  }
  if (s.idle_width() > 0) {  // the break between the strip and the clock: "not to scale"
    const double x = s.idle_left() + s.idle_width() + 3;
    p.setPen(QPen(QColor(120, 120, 120), 1.2));
    p.drawLine(QPointF(x - 3, top + height), QPointF(x + 1, top));
    p.drawLine(QPointF(x, top + height), QPointF(x + 4, top));
  }
  for (int i = 0; i < kTimelinePhases; ++i) {
    const auto phase = static_cast<TimelinePhase>(i);
    ClockSpan c = phase_span(t, index, phase);
    if (c.begin >= until_ms) break;
    c.end = std::min(c.end, until_ms);
    const QRectF r(s.x(c.begin), top, std::max(0.0, s.x(c.end) - s.x(c.begin)), height);
    if (r.width() <= 0) continue;
    const QColor color = timeline_phase_color(phase);
    if (phase == TimelinePhase::kWait) {
      // A wait is a gap: the lane's background with the all-reduce's colour hatched over it.
      p.fillRect(r, QBrush(color, Qt::BDiagPattern));
      p.setPen(QPen(color, 1));
      p.drawLine(QPointF(r.left(), r.center().y()), QPointF(r.right(), r.center().y()));
    } else {
      p.fillRect(r, color);
    }
    const QString label = ms_label(c.ms());
    if (fm.horizontalAdvance(label) + 6 <= r.width()) {
      p.setPen(phase == TimelinePhase::kWait ? color.darker(160) : QColor(255, 255, 255));
      if (phase == TimelinePhase::kWait) {
        const QRectF back(r.center().x() - fm.horizontalAdvance(label) / 2.0 - 2, r.center().y() - fm.height() / 2.0,
                          fm.horizontalAdvance(label) + 4, fm.height());
        p.fillRect(back, QColor(255, 255, 255, 200));
      }
      p.drawText(r, Qt::AlignCenter, label);
    }
  }
}

void paint_exchange(QPainter& p, const TimelineScale& s, const StepTimeline& t, int process, double top, double height) {
  const QColor color = timeline_phase_color(TimelinePhase::kAllReduce).darker(140);
  if (const ClockSpan o = overlap_span(t, process); o.ms() > 0)
    p.fillRect(QRectF(s.x(o.begin), top, std::max(1.0, s.x(o.end) - s.x(o.begin)), height), QBrush(color, Qt::Dense4Pattern));
  const ClockSpan c = exchange_span(t, process);
  if (c.ms() <= 0) return;
  const QRectF r(s.x(c.begin), top, std::max(1.0, s.x(c.end) - s.x(c.begin)), height);
  p.fillRect(r, color);
}

void paint_arrival_line(QPainter& p, const TimelineScale& s, const StepTimeline& t, double top, double bottom) {
  if (t.replicas.size() < 2) return;
  const double x = s.x(last_arrival_ms(t));
  p.setPen(QPen(timeline_phase_color(TimelinePhase::kAllReduce).darker(150), 1.2, Qt::DashLine));
  p.drawLine(QPointF(x, top), QPointF(x, bottom));
}

double paint_timeline_legend(QPainter& p, const StepTimeline& t, QPointF at, double width, const QColor& text) {
  const QFontMetrics fm = p.fontMetrics();
  const double box = 0.7 * fm.height();
  double x = at.x(), y = at.y();
  const auto item = [&](const QString& name, const QBrush& fill, const QColor& under) {
    const double w = box + 4 + fm.horizontalAdvance(name) + 14;
    if (x + w > at.x() + width && x > at.x()) {
      x = at.x();
      y += fm.height() + 2;
    }
    const QRectF b(x, y + (fm.height() - box) / 2, box, box);
    if (under.isValid()) p.fillRect(b, under);
    p.fillRect(b, fill);
    p.setPen(text);
    p.drawText(QPointF(x + box + 4, y + fm.ascent()), name);
    x += w;
  };
  for (int i = 0; i < kTimelinePhases; ++i) {
    const auto phase = static_cast<TimelinePhase>(i);
    const QColor c = timeline_phase_color(phase);
    if (phase == TimelinePhase::kWait) item("waiting for the last replica", QBrush(c, Qt::BDiagPattern), QColor());
    else item(timeline_phase_name(phase), QBrush(c), QColor());
  }
  if (t.processes.size() > 1) item("cross-process exchange", QBrush(timeline_phase_color(TimelinePhase::kAllReduce).darker(140)), QColor());
  if (std::any_of(t.processes.begin(), t.processes.end(), [](const ProcessSpans& s) { return s.overlap_end > s.overlap_begin; }))
    item("its part during backward", QBrush(timeline_phase_color(TimelinePhase::kAllReduce).darker(140), Qt::Dense4Pattern), QColor());
  for (IdleKind k : kIdleKinds) {
    bool any = false;
    for (const auto& s : t.idle) any = any || (s.kind == k && s.end > s.begin);
    if (any) item(QString("%1 (not training, not to scale)").arg(idle_kind_name(k)), QBrush(idle_color(k), Qt::BDiagPattern), idle_color(k).lighter(160));
  }
  return y + fm.height() - at.y();
}

}  // namespace mirror::ui
