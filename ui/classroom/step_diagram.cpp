#include "ui/classroom/step_diagram.h"

#include <QElapsedTimer>
#include <QPainter>

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "ui/widgets/class_look.h"

namespace mirror::ui {

namespace {
const QColor kCompute(31, 119, 180), kAllReduce(255, 127, 14), kUpdate(44, 160, 44);

// The examples of one shard, side by side in `area`: pictures, or lines of words, or points,
// each marked with its class's colour.
void draw_shard_examples(QPainter& p, const QRectF& area, const std::vector<ShardExample>& examples, const QColor& text) {
  if (examples.empty() || area.width() < 12) return;
  const QFontMetrics fm = p.fontMetrics();
  const double line = fm.height();
  if (!examples.front().picture.isNull()) {
    const double side = area.height();
    double x = area.left();
    QStringList names;
    for (const auto& e : examples) {
      if (x + side > area.right()) break;
      const QRectF box(x, area.top(), side, side);
      p.drawPixmap(box.toRect(), e.picture);
      p.setPen(QPen(class_color(e.label), 2));
      p.setBrush(Qt::NoBrush);
      p.drawRect(box.adjusted(1, 1, -1, -1));
      names << e.name;
      x += side + 4;
    }
    if (area.right() - x > 3 * fm.averageCharWidth()) {
      p.setPen(text);
      p.drawText(QRectF(x + 2, area.top(), area.right() - x - 2, side), Qt::AlignVCenter | Qt::AlignLeft,
                 fm.elidedText(names.join(", ") + "…", Qt::ElideRight, static_cast<int>(area.right() - x - 2)));
    }
    return;
  }
  if (!examples.front().point.empty()) {
    const double chip_w = area.width() / static_cast<double>(examples.size());
    for (size_t i = 0; i < examples.size(); ++i) {
      const auto& e = examples[i];
      const double x = area.left() + chip_w * static_cast<double>(i);
      const double d = 0.55 * line;
      p.setPen(Qt::NoPen);
      p.setBrush(class_color(e.label));
      p.drawEllipse(QRectF(x, area.top() + (line - d) / 2, d, d));
      p.setPen(text);
      const QString at = QString("(%1, %2)").arg(e.point[0], 0, 'f', 2).arg(e.point.size() > 1 ? e.point[1] : 0.0f, 0, 'f', 2);
      p.drawText(QRectF(x + d + 3, area.top(), chip_w - d - 6, line), Qt::AlignLeft | Qt::AlignVCenter,
                 fm.elidedText(at, Qt::ElideRight, static_cast<int>(chip_w - d - 6)));
    }
    return;
  }
  // Words: a line per example, as many as fit.
  double y = area.top();
  for (const auto& e : examples) {
    if (y + line > area.bottom() + 1) break;
    p.fillRect(QRectF(area.left(), y + 0.2 * line, 0.6 * line, 0.6 * line), class_color(e.label));
    p.setPen(text);
    const double x = area.left() + 0.6 * line + 4;
    p.drawText(QRectF(x, y, area.right() - x, line), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(e.name + ": " + e.words, Qt::ElideRight, static_cast<int>(area.right() - x)));
    y += line;
  }
}

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

int slowest_replica(const std::vector<ReplicaTiming>& t) {
  int slowest = -1;
  for (size_t i = 0; i < t.size(); ++i)
    if (slowest < 0 || t[i].allreduce_ms < t[static_cast<size_t>(slowest)].allreduce_ms) slowest = static_cast<int>(i);
  return slowest;
}

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

void StepDiagram::paint(QPainter& p) {
  p.setRenderHint(QPainter::Antialiasing);
  const QColor text = palette().color(QPalette::WindowText);
  const QFontMetrics fm = fontMetrics();
  const double line = fm.height();
  const auto& pic = picture_;
  const int n = static_cast<int>(pic.replicas.size());
  if (n == 0) {
    p.setPen(text);
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
               "Start a run: its mirrored steps are drawn here from their measured times.");
    return;
  }
  const int at = static_cast<int>(phase_);
  const auto reached = [&](StepPhase ph) { return at > static_cast<int>(ph) || (at == static_cast<int>(ph) && progress_ > 0); };
  const auto grown = [&](StepPhase ph) { return at > static_cast<int>(ph) ? 1.0 : at == static_cast<int>(ph) ? progress_ : 0.0; };
  const QPen highlight(palette().color(QPalette::Highlight), 3);
  const double left = 8, right = width() - 8.0;

  // 1. The global batch, split into one shard per replica.
  int64_t batch = 0;
  for (const auto& t : pic.replicas) batch += t.shard_size;
  p.setPen(text);
  p.drawText(QRectF(left, 4, right - left, line), Qt::AlignLeft,
             QString("Step %1: a global batch of %2 examples").arg(pic.global_step).arg(batch));
  const double band_top = 6 + line, band_h = 1.8 * line;
  const double gap = 10 * grown(StepPhase::kSplit);
  const double band_w = right - left - gap * (n - 1);
  // Under each shard, its first examples (when the window holds the run's dataset).
  const double examples_h = examples_height(pic, line);
  const double examples_top = band_top + band_h + 4;
  double x = left;
  for (int r = 0; r < n; ++r) {
    const double w = batch > 0 ? band_w * static_cast<double>(pic.replicas[static_cast<size_t>(r)].shard_size) / static_cast<double>(batch) : band_w / n;
    const QRectF shard(x, band_top, w, band_h);
    p.fillRect(shard, class_color(r).lighter(150));
    p.setPen(QColor(20, 20, 20));
    p.drawText(shard, Qt::AlignCenter, fm.elidedText(QString("shard %1: %2").arg(r).arg(pic.replicas[static_cast<size_t>(r)].shard_size), Qt::ElideRight, static_cast<int>(w)));
    if (examples_h > 0 && r < static_cast<int>(pic.shard_examples.size()))
      draw_shard_examples(p, QRectF(x + 2, examples_top, w - 4, examples_h), pic.shard_examples[static_cast<size_t>(r)], text);
    x += w + gap;
  }
  if (phase_ == StepPhase::kSplit) {
    p.setPen(highlight);
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(left, band_top, right - left, band_h + (examples_h > 0 ? examples_h + 6 : 0)));
  }

  // 2. The replicas, each a card with its shard's forward/backward, all-reduce and update times.
  const double node_w = std::min(0.36 * (right - left), 30.0 * fm.averageCharWidth());
  const double node_left = right - node_w;
  const double cards_right = node_left - 3 * line;
  const double lanes_top = band_top + band_h + (examples_h > 0 ? examples_h + 1.2 * line : 1.5 * line);
  const double bottom_reserve = 4.5 * line;
  const double lane_h = std::min(4.5 * line, (height() - lanes_top - bottom_reserve) / n);
  double longest = 0;
  for (const auto& t : pic.replicas) longest = std::max(longest, t.compute_ms + t.allreduce_ms + t.update_ms);
  double label_w = fm.horizontalAdvance("cpu:0/logical:00") + 20.0;
  for (const auto& d : pic.devices) label_w = std::max(label_w, fm.horizontalAdvance(QString::fromStdString(d)) + 20.0);
  label_w = std::min(0.45 * (cards_right - left), label_w);
  const double bar_left = left + label_w + 6, bar_w = std::max(10.0, cards_right - bar_left - fm.horizontalAdvance("000.00 ms") - 8);
  const double scale = longest > 0 ? bar_w / longest : 0;
  std::vector<QPointF> card_ends;
  for (int r = 0; r < n; ++r) {
    const auto& t = pic.replicas[static_cast<size_t>(r)];
    const QRectF card(left, lanes_top + r * lane_h, cards_right - left, lane_h - 4);
    p.setPen(QPen(class_color(r), 1.5));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(card, 4, 4);
    // Its shard's colour on its left edge: which part of the batch it works on.
    p.fillRect(QRectF(card.left() + 1, card.top() + 1, 6, card.height() - 2), class_color(r).lighter(150));
    p.setPen(text);
    const QString device = r < static_cast<int>(pic.devices.size()) ? QString::fromStdString(pic.devices[static_cast<size_t>(r)]) : QString();
    // "replica r", its device and its shard on lines of their own when the card is tall enough.
    const QRectF label(card.left() + 12, card.top(), label_w - 14, card.height());
    const auto fit = [&](const QString& s) { return fm.elidedText(s, Qt::ElideRight, static_cast<int>(label.width())); };
    QString what = card.height() >= 3.2 * line ? fit(QString("replica %1").arg(r)) + "\n" + fit(device) + "\n" +
                                                     fit(QString("shard of %1").arg(t.shard_size))
                   : card.height() >= 2.2 * line ? fit(QString("replica %1").arg(r)) + "\n" + fit(device)
                                                 : fit(QString("replica %1 · %2").arg(r).arg(device));
    p.drawText(label, Qt::AlignVCenter, what);
    const double bar_h = std::min(card.height() - 8, 1.6 * line), bar_top = card.center().y() - bar_h / 2;
    double bx = bar_left;
    double total_ms = 0;
    for (const auto& [ph, ms, color] : {std::tuple{StepPhase::kCompute, t.compute_ms, kCompute},
                                        std::tuple{StepPhase::kAllReduce, t.allreduce_ms, kAllReduce},
                                        std::tuple{StepPhase::kUpdate, t.update_ms, kUpdate}}) {
      const double w = ms * scale * grown(ph);
      p.fillRect(QRectF(bx, bar_top, w, bar_h), color);
      bx += w;
      if (grown(ph) > 0) total_ms += ms * grown(ph);
    }
    p.setPen(text);
    if (total_ms > 0) p.drawText(QRectF(bx + 4, card.top(), cards_right - bx, card.height()), Qt::AlignVCenter, QString("%1 ms").arg(total_ms, 0, 'f', 2));
    card_ends.emplace_back(card.right(), card.center().y());
    if (phase_ == StepPhase::kCompute || phase_ == StepPhase::kUpdate) {
      p.setPen(highlight);
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(card, 4, 4);
    }
  }

  // Several processes: a dashed frame around each one's replicas, named at its top right (their
  // gradients are summed inside the process first, then across processes).
  for (const ProcessGroup& g : process_groups(pic.devices)) {
    const QRectF frame(left - 4, lanes_top + g.first * lane_h - 2, cards_right - left + 8, g.count * lane_h);
    p.setPen(QPen(palette().color(QPalette::Mid), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(frame, 6, 6);
    p.setPen(text);
    p.drawText(frame.adjusted(0, 2, -8, 0), Qt::AlignRight | Qt::AlignTop, QString("process %1").arg(g.process));
  }

  // 3. The all-reduce: every replica's gradients meet here, and the sum goes back to each.
  const double lanes_h = n * lane_h;
  const double node_h = std::max(6.5 * line, std::min(lanes_h, 7.5 * line));
  const QRectF node(node_left, lanes_top + (lanes_h - node_h) / 2, node_w, node_h);
  const bool reducing = phase_ == StepPhase::kAllReduce;
  for (const auto& end : card_ends) {
    p.setPen(QPen(reducing ? kAllReduce : palette().color(QPalette::Mid), reducing ? 2.5 : 1));
    p.drawLine(end, QPointF(node.left(), node.center().y()));
  }
  p.setPen(reducing ? highlight : QPen(kAllReduce, 1.5));
  p.setBrush(palette().color(QPalette::Base));
  p.drawRoundedRect(node, 6, 6);
  double mean_reduce = 0;
  for (const auto& t : pic.replicas) mean_reduce += t.allreduce_ms / n;
  const int slowest = slowest_replica(pic.replicas);
  p.setPen(text);
  const QStringList lines = {
      "<b>All-reduce</b>",
      QString::fromStdString(pic.communicator),
      QString("%L1 gradients").arg(pic.parameters),
      QString("%1 per replica").arg(bytes_text(4.0 * static_cast<double>(pic.parameters))),
      QString("%1 ms on average").arg(mean_reduce, 0, 'f', 2),
      n > 1 ? QString("all wait for replica %1").arg(slowest) : QString("one replica: nothing to wait for")};
  double ly = node.top() + 6;
  for (const auto& l : lines) {
    const bool bold = l.startsWith("<b>");
    QFont f = font();
    f.setBold(bold);
    p.setFont(f);
    p.drawText(QRectF(node.left() + 6, ly, node.width() - 12, line), Qt::AlignLeft,
               QFontMetrics(f).elidedText(bold ? QString(l).remove("<b>").remove("</b>") : l, Qt::ElideRight, static_cast<int>(node.width() - 12)));
    ly += line;
  }
  p.setFont(font());

  // 4. The same update on every copy, and 5. the sync check's checksums.
  const double foot = lanes_top + lanes_h + 0.8 * line;
  p.setPen(phase_ == StepPhase::kUpdate ? QPen(kUpdate.darker(130)) : QPen(text));
  if (reached(StepPhase::kUpdate))
    p.drawText(QRectF(left, foot, right - left, line), Qt::AlignLeft,
               "Update: the same summed gradient, the same optimizer step on every replica's own copy.");
  if (reached(StepPhase::kSyncCheck)) {
    const double y = foot + 1.4 * line;
    const bool same = !pic.checksums.empty() && std::all_of(pic.checksums.begin(), pic.checksums.end(),
                                                            [&](uint64_t c) { return c == pic.checksums.front(); });
    p.setPen(text);
    QString head = pic.sync_step > 0 ? QString("Sync check after step %1:").arg(pic.sync_step) : QString("Sync check: not yet");
    p.drawText(QRectF(left, y, right - left, line), Qt::AlignLeft, head);
    double cx = left + fm.horizontalAdvance(head) + 10;
    for (size_t r = 0; r < pic.checksums.size() && cx < right - 40; ++r) {
      const QString c = QString("%1: %2").arg(r).arg(checksum_text(pic.checksums[r]));
      const QRectF box(cx, y - 2, fm.horizontalAdvance(c) + 10, line + 4);
      p.fillRect(box, pic.checksums[r] == pic.checksums.front() ? QColor(46, 160, 67, 60) : QColor(214, 39, 40, 90));
      p.drawText(box, Qt::AlignCenter, c);
      cx += box.width() + 6;
    }
    if (same) {
      p.setPen(QColor(46, 160, 67).darker(120));
      p.drawText(QRectF(cx, y, right - cx, line), Qt::AlignLeft, "bit-identical");
    }
    if (phase_ == StepPhase::kSyncCheck && progress_ < 1) {
      p.setPen(highlight);
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRectF(left - 2, y - 4, right - left + 4, line + 8));
    }
  }
}

}  // namespace mirror::ui
