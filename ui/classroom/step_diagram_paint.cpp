// StepDiagram's painting, part by part: 1. the global batch split into shards, 2. the replicas'
// cards on the step's one clock (with their processes, the clock and the key), 3. the all-reduce,
// 4. the update and 5. the sync check's checksums.
// Tested by tests/ui/classroom/test_strategy_view.cpp and tests/ui/classroom/test_strategy_timeline.cpp.
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ui/classroom/step_diagram.h"
#include "ui/widgets/class_look.h"

namespace mirror::ui {

namespace {
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
}  // namespace

// What the parts of one paint share: the layout, the colours, how far the walk-through shows the
// step's clock, and what each part leaves for the next (where the cards end, what is below them).
struct StepDiagram::Frame {
  Layout l;
  QColor text;
  QPen highlight;
  const StepPicture* pic = nullptr;
  int n = 0;                     // replicas
  bool on_clock = false;         // the step has a timeline
  int at = 0;                    // the walk-through's phase
  double arrival = 0, reduced = 0, until = 0;  // ms: the last arrival, the sum's end, what is shown
  double lanes_h = 0;
  std::vector<QPointF> card_ends;  // each card's right edge: where its line to the all-reduce starts
  double below = 0;                // the first free y under the lanes, the clock and the key
  double node_bottom = 0;          // the all-reduce node's
  // A replica's shard size, from the timeline when the step has one.
  int64_t shard(int r) const {
    const auto i = static_cast<size_t>(r);
    return on_clock ? pic->timeline.replicas[i].shard_size : pic->replicas[i].shard_size;
  }
};

void StepDiagram::paint(QPainter& p) {
  p.setRenderHint(QPainter::Antialiasing);
  Frame f;
  f.text = palette().color(QPalette::WindowText);
  f.pic = &picture_;
  const StepTimeline& tl = picture_.timeline;
  f.on_clock = !tl.empty();
  f.n = static_cast<int>(f.on_clock ? tl.replicas.size() : picture_.replicas.size());
  if (f.n == 0) {
    p.setPen(f.text);
    p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
               "Start a run: its mirrored steps are drawn here from their measured times.");
    return;
  }
  f.l = layout();
  f.highlight = QPen(palette().color(QPalette::Highlight), 3);
  f.at = static_cast<int>(phase_);
  // The walk-through reveals the clock up to the last arrival with forward and backward, then the
  // all-reduce, then the update.
  f.arrival = last_arrival_ms(tl);
  f.reduced = f.arrival;
  for (const auto& m : tl.replicas) f.reduced = std::max(f.reduced, m.reduced);
  const int at = f.at;
  f.until = at < static_cast<int>(StepPhase::kCompute) ? -1e300
            : at == static_cast<int>(StepPhase::kCompute) ? grown(StepPhase::kCompute) * f.arrival
            : at == static_cast<int>(StepPhase::kAllReduce) ? f.arrival + grown(StepPhase::kAllReduce) * (f.reduced - f.arrival)
            : at == static_cast<int>(StepPhase::kUpdate) ? f.reduced + grown(StepPhase::kUpdate) * (tl.end_ms() - f.reduced)
                                                          : 1e300;
  f.lanes_h = f.n * f.l.lane_h;
  paint_batch(p, f);
  paint_replicas(p, f);
  paint_allreduce(p, f);
  paint_update_and_sync(p, f);
}

void StepDiagram::paint_batch(QPainter& p, const Frame& f) const {
  // 1. The global batch, split into one shard per replica.
  const Layout& l = f.l;
  const double line = l.line, left = l.left, right = l.right;
  const QColor& text = f.text;
  const StepPicture& pic = picture_;
  const StepTimeline& tl = pic.timeline;
  const int n = f.n;
  const QFontMetrics fm = fontMetrics();
  p.setPen(text);
  int64_t batch = 0;
  for (int r = 0; r < n; ++r) batch += f.shard(r);
  const bool earlier = f.on_clock && tl.global_step > 0 && tl.global_step != pic.global_step;
  const QString head = earlier ? QString("Step %1 on one clock (it arrives with step %2: another process's times travel "
                                         "with the next step's gradients): a global batch of %3 examples")
                                     .arg(tl.global_step).arg(pic.global_step).arg(batch)
                               : QString("Step %1: a global batch of %2 examples").arg(pic.global_step).arg(batch);
  p.drawText(QRectF(left, 4, right - left, line), Qt::AlignLeft, fm.elidedText(head, Qt::ElideRight, static_cast<int>(right - left)));
  const double band_top = l.band_top, band_h = l.band_h;
  const double gap = 10 * grown(StepPhase::kSplit);
  const double band_w = right - left - gap * (n - 1);
  // Under each shard, its first examples (when the window holds the run's dataset).
  const double examples_h = l.examples_h;
  const double examples_top = band_top + band_h + 4;
  double x = left;
  for (int r = 0; r < n; ++r) {
    const double w = batch > 0 ? band_w * static_cast<double>(f.shard(r)) / static_cast<double>(batch) : band_w / n;
    const QRectF shard(x, band_top, w, band_h);
    p.fillRect(shard, class_color(r).lighter(150));
    p.setPen(QColor(20, 20, 20));
    p.drawText(shard, Qt::AlignCenter, fm.elidedText(QString("shard %1: %2").arg(r).arg(f.shard(r)), Qt::ElideRight, static_cast<int>(w)));
    if (examples_h > 0 && r < static_cast<int>(pic.shard_examples.size()))
      draw_shard_examples(p, QRectF(x + 2, examples_top, w - 4, examples_h), pic.shard_examples[static_cast<size_t>(r)], text);
    x += w + gap;
  }
  if (phase_ == StepPhase::kSplit) {
    p.setPen(f.highlight);
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(left, band_top, right - left, band_h + (examples_h > 0 ? examples_h + 6 : 0)));
  }
}

void StepDiagram::paint_replicas(QPainter& p, Frame& f) const {
  const Layout& l = f.l;
  const double line = l.line, left = l.left;
  const QColor& text = f.text;
  const StepPicture& pic = picture_;
  const StepTimeline& tl = pic.timeline;
  const int n = f.n, at = f.at;
  const bool on_clock = f.on_clock;
  const QFontMetrics fm = fontMetrics();
  // 2. The replicas, each a card with its phases on the step's one clock, as far as f.until.
  const double lanes_top = l.lanes_top, lane_h = l.lane_h, cards_right = l.cards_right;
  const TimelineScale scale(tl, l.bar_left, l.bar_right);
  const double until = f.until, arrival = f.arrival;
  double longest = 0;
  for (const auto& t : pic.replicas) longest = std::max(longest, t.compute_ms + t.allreduce_ms + t.update_ms);
  const double old_scale = longest > 0 ? (l.bar_right - l.bar_left) / longest : 0;
  for (int r = 0; r < n; ++r) {
    const QRectF card(left, lanes_top + r * lane_h, cards_right - left, lane_h - 4);
    p.setPen(QPen(class_color(r), 1.5));
    p.setBrush(palette().color(QPalette::Base));
    p.drawRoundedRect(card, 4, 4);
    // Its shard's colour on its left edge: which part of the batch it works on.
    p.fillRect(QRectF(card.left() + 1, card.top() + 1, 6, card.height() - 2), class_color(r).lighter(150));
    p.setPen(text);
    const QString device = r < static_cast<int>(pic.devices.size()) ? QString::fromStdString(pic.devices[static_cast<size_t>(r)]) : QString();
    // "replica r", its device and its shard on lines of their own when the card is tall enough.
    const QRectF label(card.left() + 12, card.top(), l.label_w - 14, card.height());
    const auto fit = [&](const QString& s) { return fm.elidedText(s, Qt::ElideRight, static_cast<int>(label.width())); };
    QString what = card.height() >= 3.2 * line ? fit(QString("replica %1").arg(r)) + "\n" + fit(device) + "\n" +
                                                     fit(QString("shard of %1").arg(f.shard(r)))
                   : card.height() >= 2.2 * line ? fit(QString("replica %1").arg(r)) + "\n" + fit(device)
                                                 : fit(QString("replica %1 · %2").arg(r).arg(device));
    p.drawText(label, Qt::AlignVCenter, what);
    const double bar_h = bar_height(l), top = bar_top(l, r);
    if (on_clock) {
      const auto idx = static_cast<size_t>(r);
      paint_replica_lane(p, scale, tl, idx, top, bar_h, until);
      const ReplicaMarks& m = tl.replicas[idx];
      if (tl.processes.size() > 1 && at >= static_cast<int>(StepPhase::kAllReduce)) {
        p.save();
        paint_exchange(p, scale, tl, m.process, top + bar_h + 2, 5);
        p.restore();
      }
      if (until >= m.gradients_ready) {
        p.setPen(text);
        p.drawText(QRectF(scale.right() + 6, card.top(), cards_right - scale.right() - 6, card.height()), Qt::AlignVCenter,
                   gradients_at_label(m.gradients_ready));
      }
    } else {
      // No timeline: the durations side by side, not on a clock (who waited is not known).
      const auto& t = pic.replicas[static_cast<size_t>(r)];
      double bx = l.bar_left;
      for (const auto& [ph, ms, phase] : {std::tuple{StepPhase::kCompute, t.compute_ms, TimelinePhase::kForward},
                                          std::tuple{StepPhase::kAllReduce, t.allreduce_ms, TimelinePhase::kAllReduce},
                                          std::tuple{StepPhase::kUpdate, t.update_ms, TimelinePhase::kUpdate}}) {
        const double w = ms * old_scale * grown(ph);
        p.fillRect(QRectF(bx, top, w, bar_h), timeline_phase_color(phase));
        bx += w;
      }
    }
    f.card_ends.emplace_back(card.right(), card.center().y());
    if (phase_ == StepPhase::kCompute || phase_ == StepPhase::kUpdate) {
      p.setPen(f.highlight);
      p.setBrush(Qt::NoBrush);
      p.drawRoundedRect(card, 4, 4);
    }
  }
  const double lanes_h = f.lanes_h;
  if (on_clock && until >= arrival) paint_arrival_line(p, scale, tl, lanes_top - 2, lanes_top + lanes_h - 2);

  // Several processes: a dashed frame around each one's replicas, named at its top right (their
  // gradients are summed inside the process first, then across processes).
  std::vector<ProcessGroup> groups = process_groups(pic.devices);
  if (groups.empty() && on_clock && tl.processes.size() > 1)
    for (size_t r = 0; r < tl.replicas.size(); ++r) {
      if (groups.empty() || groups.back().process != tl.replicas[r].process)
        groups.push_back({tl.replicas[r].process, static_cast<int>(r), 0});
      ++groups.back().count;
    }
  for (const ProcessGroup& g : groups) {
    const QRectF frame(left - 4, lanes_top + g.first * lane_h - 2, cards_right - left + 8, g.count * lane_h);
    p.setPen(QPen(palette().color(QPalette::Mid), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRoundedRect(frame, 6, 6);
    p.setPen(text);
    p.drawText(frame.adjusted(0, 2, -8, 0), Qt::AlignRight | Qt::AlignTop, QString("process %1").arg(g.process));
  }

  // The clock under the lanes, and what the colours mean.
  double& below = f.below;
  below = lanes_top + lanes_h + 4;
  if (on_clock) {
    p.setPen(text);
    const double end = tl.end_ms();
    // Ticks at 1, 2 or 5 times a power of ten, no closer than a label's width.
    const double label_ms = (fm.horizontalAdvance(QString("%1 ms").arg(end, 0, 'g', 3)) + 14) / std::max(1e-9, scale.px_per_ms());
    const double raw = std::max(end / 6, label_ms), mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-6))));
    const double tick = raw / mag <= 1 ? mag : raw / mag <= 2 ? 2 * mag : raw / mag <= 5 ? 5 * mag : 10 * mag;
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawLine(QPointF(scale.clock_left(), below), QPointF(scale.right(), below));
    p.setPen(text);
    for (double t = 0; t <= end + 1e-9 && tick > 0; t += tick) {
      const double tx = scale.x(t);
      p.drawLine(QPointF(tx, below), QPointF(tx, below + 4));
      const QString s = QString("%1 ms").arg(t, 0, 'g', 3);
      p.drawText(QRectF(tx - 40, below + 4, 80, line), Qt::AlignHCenter | Qt::AlignTop, s);
    }
    below += line + 6;
    below += paint_timeline_legend(p, tl, QPointF(left, below), cards_right - left, text) + 2;
  } else {
    p.setPen(text);
    p.drawText(QRectF(left, below + 2, cards_right - left, line), Qt::AlignLeft,
               fm.elidedText("Durations only: this step has no timeline, so who waited for whom is not known.", Qt::ElideRight,
                             static_cast<int>(cards_right - left)));
    below += line + 4;
  }
}

void StepDiagram::paint_allreduce(QPainter& p, Frame& f) const {
  const Layout& l = f.l;
  const double line = l.line;
  const QColor& text = f.text;
  const StepPicture& pic = picture_;
  const StepTimeline& tl = pic.timeline;
  const int n = f.n;
  const double lanes_top = l.lanes_top, lanes_h = f.lanes_h, arrival = f.arrival, reduced = f.reduced;
  // 3. The all-reduce: every replica's gradients meet here, and the sum goes back to each.
  const double node_h = std::max(6.5 * line, std::min(lanes_h, 7.5 * line));
  const QRectF node(l.node_left, lanes_top + (lanes_h - node_h) / 2, l.node_w, node_h);
  const bool reducing = phase_ == StepPhase::kAllReduce;
  for (const auto& end : f.card_ends) {
    p.setPen(QPen(reducing ? timeline_phase_color(TimelinePhase::kAllReduce) : palette().color(QPalette::Mid), reducing ? 2.5 : 1));
    p.drawLine(end, QPointF(node.left(), node.center().y()));
  }
  p.setPen(reducing ? f.highlight : QPen(timeline_phase_color(TimelinePhase::kAllReduce), 1.5));
  p.setBrush(palette().color(QPalette::Base));
  p.drawRoundedRect(node, 6, 6);
  p.setPen(text);
  QStringList lines = {"<b>All-reduce</b>", QString::fromStdString(pic.communicator),
                       QString("%L1 gradients").arg(pic.parameters),
                       QString("%1 per replica").arg(bytes_text(4.0 * static_cast<double>(pic.parameters)))};
  if (f.on_clock && n > 1) {
    const int last = tl.last_to_arrive(), first = tl.first_to_arrive();
    const auto& lm = tl.replicas[static_cast<size_t>(last)];
    const auto& fm0 = tl.replicas[static_cast<size_t>(first)];
    lines << QString("last to arrive: replica %1").arg(lm.replica)
          << QString("replica %1 waited %2 ms").arg(fm0.replica).arg(lm.gradients_ready - fm0.gradients_ready, 0, 'f', 2)
          << QString("summing: %1 ms").arg(reduced - arrival, 0, 'f', 2);
    if (tl.simulated_link) lines << QString("simulated link: +%1 ms").arg(tl.simulated_allreduce_ms, 0, 'f', 2);
  } else if (n > 1) {
    double mean_reduce = 0;
    for (const auto& t : pic.replicas) mean_reduce += t.allreduce_ms / n;
    lines << QString("%1 ms on average").arg(mean_reduce, 0, 'f', 2);
  } else {
    lines << "one replica: nothing to wait for";
  }
  double ly = node.top() + 6;
  for (const auto& li : lines) {
    if (ly + line > node.bottom()) break;
    const bool bold = li.startsWith("<b>");
    QFont f = font();
    f.setBold(bold);
    p.setFont(f);
    p.drawText(QRectF(node.left() + 6, ly, node.width() - 12, line), Qt::AlignLeft,
               QFontMetrics(f).elidedText(bold ? QString(li).remove("<b>").remove("</b>") : li, Qt::ElideRight, static_cast<int>(node.width() - 12)));
    ly += line;
  }
  p.setFont(font());
  f.node_bottom = node.bottom();
}

void StepDiagram::paint_update_and_sync(QPainter& p, const Frame& f) const {
  const Layout& l = f.l;
  const double line = l.line, left = l.left, right = l.right;
  const QColor& text = f.text;
  const StepPicture& pic = picture_;
  const QFontMetrics fm = fontMetrics();
  // 4. The same update on every copy, and 5. the sync check's checksums.
  const double foot = std::max(f.below + 0.3 * line, f.node_bottom + 0.3 * line);
  p.setPen(phase_ == StepPhase::kUpdate ? QPen(timeline_phase_color(TimelinePhase::kUpdate).darker(130)) : QPen(text));
  if (reached(StepPhase::kUpdate))
    p.drawText(QRectF(left, foot, right - left, line), Qt::AlignLeft,
               "Update: the same summed gradient, the same optimizer step on every replica's own copy.");
  if (reached(StepPhase::kSyncCheck)) {
    const double y = foot + 1.4 * line;
    const bool same = !pic.checksums.empty() && std::all_of(pic.checksums.begin(), pic.checksums.end(),
                                                            [&](uint64_t c) { return c == pic.checksums.front(); });
    const bool failed = pic.sync_failed || (!pic.checksums.empty() && !same);
    // Red that reads on either theme (contrast >= 4.5:1 on the light and the dark window).
    const QColor bad = text.lightness() > 128 ? QColor(255, 120, 120) : QColor(190, 30, 30);
    p.setPen(failed ? QPen(bad) : QPen(text));
    QString head = pic.sync_step == 0 ? QString("Sync check: not yet")
                   : failed           ? QString("Sync check after step %1 FAILED:").arg(pic.sync_step)
                                      : QString("Sync check after step %1:").arg(pic.sync_step);
    p.drawText(QRectF(left, y, right - left, line), Qt::AlignLeft, head);
    p.setPen(text);
    double cx = left + fm.horizontalAdvance(head) + 10;
    for (size_t r = 0; r < pic.checksums.size() && cx < right - 40; ++r) {
      const QString c = QString("%1: %2").arg(r).arg(checksum_text(pic.checksums[r]));
      const QRectF box(cx, y - 2, fm.horizontalAdvance(c) + 10, line + 4);
      p.fillRect(box, pic.checksums[r] == pic.checksums.front() ? QColor(46, 160, 67, 60) : QColor(214, 39, 40, 90));
      p.drawText(box, Qt::AlignCenter, c);
      cx += box.width() + 6;
    }
    if (same && !failed) {
      p.setPen(QColor(46, 160, 67).darker(120));
      p.drawText(QRectF(cx, y, right - cx, line), Qt::AlignLeft, "bit-identical");
    } else if (failed) {
      const QStringList odd = pic.differing_replicas();
      const QString why = odd.isEmpty()         ? QString("differ: the run stopped")
                          : odd.size() == 1     ? QString("replica %1 differs: the run stopped").arg(odd.front())
                                                : QString("replicas %1 differ: the run stopped").arg(odd.join(", "));
      p.setPen(bad);
      p.drawText(QRectF(cx, y, right - cx, line), Qt::AlignLeft, fm.elidedText(why, Qt::ElideRight, static_cast<int>(std::max(0.0, right - cx))));
    }
    if (phase_ == StepPhase::kSyncCheck && progress_ < 1) {
      p.setPen(f.highlight);
      p.setBrush(Qt::NoBrush);
      p.drawRect(QRectF(left - 2, y - 4, right - left + 4, line + 8));
    }
  }
}

}  // namespace mirror::ui
