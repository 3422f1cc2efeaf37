// Tested by tests/ui/classroom/test_strategy_view.cpp and tests/ui/classroom/test_strategy_timeline.cpp.
#include "ui/classroom/step_diagram.h"

#include <QElapsedTimer>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "ui/widgets/class_look.h"

namespace mirror::ui {

namespace {

// How tall the row of shard examples is: a picture's side, lines of words, or one line of points.
double examples_height(const StepPicture& pic, double line) {
  for (const auto& shard : pic.shard_examples) {
    if (shard.empty()) continue;
    if (!shard.front().picture.isNull()) return 2.4 * line;
    if (!shard.front().point.empty()) return line;
    return 2 * line;
  }
  return 0;
}
}  // namespace

QString bytes_text(double bytes) {
  if (bytes < 1024) return QString("%1 B").arg(bytes, 0, 'f', 0);
  if (bytes < 1024 * 1024) return QString("%1 KiB").arg(bytes / 1024, 0, 'f', 1);
  return QString("%1 MiB").arg(bytes / (1024 * 1024), 0, 'f', 1);
}

QString checksum_text(uint64_t c) { return QString("%1").arg(c >> 32, 8, 16, QChar('0')); }

StepDiagram::StepDiagram(QWidget* parent) : QWidget(parent) {
  // Opaque: it paints its whole rectangle, so an animation frame repaints this widget alone, not
  // the tab pane, frames and window behind it (a profile showed those at half the GUI thread's
  // painting while the Strategy tab animated).
  setAttribute(Qt::WA_OpaquePaintEvent);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setFocusPolicy(Qt::StrongFocus);
}

void StepDiagram::set_picture(const StepPicture& picture) {
  picture_ = picture;
  update();
}

void StepDiagram::set_phase(StepPhase phase, double progress) {
  progress = std::clamp(progress, 0.0, 1.0);
  if (phase == phase_ && progress == progress_) return;  // a live replay's rest: nothing moves, nothing to paint
  phase_ = phase;
  progress_ = progress;
  update();
}

std::vector<ProcessGroup> process_groups(const std::vector<std::string>& devices) {
  std::vector<ProcessGroup> groups;
  for (size_t r = 0; r < devices.size(); ++r) {
    const std::string& d = devices[r];
    if (d.rfind("rank ", 0) != 0) return {};
    const int process = std::atoi(d.c_str() + 5);
    if (groups.empty() || groups.back().process != process)
      groups.push_back({process, static_cast<int>(r), 0});
    ++groups.back().count;
  }
  return groups;
}

void StepDiagram::paintEvent(QPaintEvent*) {
  QElapsedTimer cost;
  cost.start();
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Window));
  paint(p);
  const double ms = static_cast<double>(cost.nsecsElapsed()) / 1e6;
  paint_ms_ = paint_ms_ == 0 ? ms : 0.8 * paint_ms_ + 0.2 * ms;
}

double StepDiagram::grown(StepPhase ph) const {
  const int at = static_cast<int>(phase_);
  return at > static_cast<int>(ph) ? 1.0 : at == static_cast<int>(ph) ? progress_ : 0.0;
}

bool StepDiagram::reached(StepPhase ph) const {
  const int at = static_cast<int>(phase_);
  return at > static_cast<int>(ph) || (at == static_cast<int>(ph) && progress_ > 0);
}

StepDiagram::Layout StepDiagram::layout() const {
  Layout l;
  const QFontMetrics fm = fontMetrics();
  const auto& pic = picture_;
  const int n = std::max<int>(1, static_cast<int>(pic.timeline.empty() ? pic.replicas.size() : pic.timeline.replicas.size()));
  l.line = fm.height();
  l.left = 8;
  l.right = width() - 8.0;
  l.band_top = 6 + l.line;
  l.band_h = 1.8 * l.line;
  l.examples_h = examples_height(pic, l.line);
  l.node_w = std::min(0.30 * (l.right - l.left), 30.0 * fm.averageCharWidth());
  l.node_left = l.right - l.node_w;
  l.cards_right = l.node_left - 2 * l.line;
  l.lanes_top = l.band_top + l.band_h + (l.examples_h > 0 ? l.examples_h + 1.2 * l.line : 1.5 * l.line);
  // Below the lanes: the clock's axis, the legend (two lines at most), the update and the sync check.
  const double bottom_reserve = 8 * l.line;
  l.lane_h = std::max(1.6 * l.line, std::min(4.5 * l.line, (height() - l.lanes_top - bottom_reserve) / n));
  double label_w = fm.horizontalAdvance("cpu:0/logical:00") + 20.0;
  for (const auto& d : pic.devices) label_w = std::max(label_w, fm.horizontalAdvance(QString::fromStdString(d)) + 20.0);
  l.label_w = std::min(0.30 * (l.cards_right - l.left), label_w);
  l.bar_left = l.left + l.label_w + 6;
  l.bar_right = std::max(l.bar_left + 10, l.cards_right - fm.horizontalAdvance(gradients_at_label(0)) - 10);
  return l;
}

double StepDiagram::bar_height(const Layout& l) const { return std::max(4.0, std::min(l.lane_h - 4 - 10, 1.6 * l.line)); }

double StepDiagram::bar_top(const Layout& l, int r) const {
  const double card_top = l.lanes_top + r * l.lane_h, card_h = l.lane_h - 4;
  return card_top + (card_h - bar_height(l)) / 2 - 2;  // a little above the middle: the exchange goes under
}

QRectF StepDiagram::bar_rect(int replica, TimelinePhase phase) const {
  const StepTimeline& t = picture_.timeline;
  if (replica < 0 || replica >= static_cast<int>(t.replicas.size())) return {};
  const Layout l = layout();
  const TimelineScale scale(t, l.bar_left, l.bar_right);
  return phase_rect(scale, t, static_cast<size_t>(replica), phase, bar_top(l, replica), bar_height(l));
}

QRectF StepDiagram::idle_rect(int process, IdleKind kind) const {
  const StepTimeline& t = picture_.timeline;
  for (size_t r = 0; r < t.replicas.size(); ++r) {
    if (t.replicas[r].process != process) continue;
    const Layout l = layout();
    const TimelineScale scale(t, l.bar_left, l.bar_right);
    return ui::idle_rect(scale, t, process, kind, bar_top(l, static_cast<int>(r)), bar_height(l));
  }
  return {};
}

QRectF StepDiagram::exchange_rect(int process) const {
  const StepTimeline& t = picture_.timeline;
  const ClockSpan c = exchange_span(t, process);
  if (c.ms() <= 0) return {};
  for (size_t r = 0; r < t.replicas.size(); ++r) {
    if (t.replicas[r].process != process) continue;
    const Layout l = layout();
    const TimelineScale scale(t, l.bar_left, l.bar_right);
    const double top = bar_top(l, static_cast<int>(r)) + bar_height(l) + 2;
    return {scale.x(c.begin), top, std::max(1.0, scale.x(c.end) - scale.x(c.begin)), 5};
  }
  return {};
}

QStringList StepPicture::differing_replicas() const {
  QStringList out;
  for (size_t r = 1; r < checksums.size(); ++r)
    if (checksums[r] != checksums.front()) out << QString::number(r);
  return out;
}

}  // namespace mirror::ui
