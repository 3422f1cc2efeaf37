// Tested by tests/ui/setup/test_own_data.cpp.
#include "ui/setup/point_canvas.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QString>

#include <algorithm>

#include "ui/widgets/class_look.h"

namespace mirror::ui {

namespace {
constexpr double kMargin = 8;        // pixels around the plane
constexpr double kStrokeSpacing = 9;  // pixels between the points of a dragged stroke
constexpr double kEraseRadius = 14;  // pixels
constexpr double kPointRadius = 4;
constexpr double kKeyStep = 0.05;  // of the plane, per arrow key
constexpr size_t kMaxUndo = 100;
}  // namespace

QByteArray points_csv(const std::vector<DrawnPoint>& points) {
  QByteArray csv = "x,y,label\n";
  for (const DrawnPoint& p : points)  // QString::number: C locale, never a decimal comma
    csv += QString("%1,%2,%3\n").arg(QString::number(p.x, 'g', 6), QString::number(p.y, 'g', 6)).arg(p.label).toUtf8();
  return csv;
}

PointCanvas::PointCanvas(QWidget* parent) : QWidget(parent) {
  setObjectName("point-canvas");
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setCursor(Qt::CrossCursor);
  setAccessibleName("Point canvas");
  setToolTip("Click or drag to add points of the chosen class; right-click or Erase to remove them.\n"
             "Keys: arrows move the cross-hair, Space adds, Delete erases, 0-5 pick a class, E erases, Ctrl+Z undoes.");
}

QRectF PointCanvas::plane() const {
  const double side = std::max(10.0, std::min(width(), height()) - 2 * kMargin);
  return {(width() - side) / 2, (height() - side) / 2, side, side};
}

QPointF PointCanvas::to_widget(double x, double y) const {
  const QRectF r = plane();
  return {r.left() + (x + 1) / 2 * r.width(), r.top() + (1 - y) / 2 * r.height()};
}

QPointF PointCanvas::to_data(const QPointF& w) const {
  const QRectF r = plane();
  return {std::clamp((w.x() - r.left()) / r.width() * 2 - 1, -1.0, 1.0),
          std::clamp(1 - (w.y() - r.top()) / r.height() * 2, -1.0, 1.0)};
}

void PointCanvas::set_current_class(int k) {
  class_ = std::clamp(k, 0, classes_ - 1);
  update();
}

void PointCanvas::set_classes(int classes) {
  classes = std::clamp(classes, 2, kMaxClasses);
  if (classes == classes_) return;
  const bool drops = std::any_of(points_.begin(), points_.end(), [classes](const DrawnPoint& p) { return p.label >= classes; });
  if (drops) {
    begin_stroke();
    points_.erase(std::remove_if(points_.begin(), points_.end(), [classes](const DrawnPoint& p) { return p.label >= classes; }),
                  points_.end());
  }
  classes_ = classes;
  class_ = std::min(class_, classes_ - 1);
  update();
  if (drops) Q_EMIT changed();
}

void PointCanvas::set_erasing(bool on) {
  erasing_ = on;
  setCursor(on ? Qt::PointingHandCursor : Qt::CrossCursor);
  update();
}

void PointCanvas::clear() {
  if (points_.empty()) return;
  begin_stroke();
  points_.clear();
  update();
  Q_EMIT changed();
}

bool PointCanvas::undo() {
  if (history_.empty()) return false;
  points_ = std::move(history_.back());
  history_.pop_back();
  update();
  Q_EMIT changed();
  return true;
}

void PointCanvas::begin_stroke() {
  history_.push_back(points_);
  if (history_.size() > kMaxUndo) history_.erase(history_.begin());
}

void PointCanvas::add_at(const QPointF& widget) {
  if (static_cast<int>(points_.size()) >= kMaxPoints) return;
  const QPointF d = to_data(widget);
  points_.push_back({d.x(), d.y(), class_});
  last_added_ = widget;
  update();
  Q_EMIT changed();
}

void PointCanvas::erase_at(const QPointF& widget) {
  const auto far = [&](const DrawnPoint& p) {
    const QPointF w = to_widget(p.x, p.y) - widget;
    return w.x() * w.x() + w.y() * w.y() > kEraseRadius * kEraseRadius;
  };
  const auto kept = std::stable_partition(points_.begin(), points_.end(), far);
  if (kept == points_.end()) return;
  points_.erase(kept, points_.end());
  update();
  Q_EMIT changed();
}

void PointCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton && event->button() != Qt::RightButton) return QWidget::mousePressEvent(event);
  in_stroke_ = true;
  stroke_erases_ = erasing_ || event->button() == Qt::RightButton;
  begin_stroke();
  const QPointF at = event->position();
  cursor_ = to_data(at);
  if (stroke_erases_) erase_at(at);
  else add_at(at);
}

void PointCanvas::mouseMoveEvent(QMouseEvent* event) {
  if (!in_stroke_) return QWidget::mouseMoveEvent(event);
  const QPointF at = event->position();
  cursor_ = to_data(at);
  if (stroke_erases_) {
    erase_at(at);
  } else {
    const QPointF step = at - last_added_;
    if (step.x() * step.x() + step.y() * step.y() >= kStrokeSpacing * kStrokeSpacing) add_at(at);
  }
}

void PointCanvas::mouseReleaseEvent(QMouseEvent* event) {
  if (!in_stroke_) return QWidget::mouseReleaseEvent(event);
  in_stroke_ = false;
  if (!history_.empty() && history_.back().size() == points_.size() && stroke_erases_) history_.pop_back();  // erased nothing
}

void PointCanvas::keyPressEvent(QKeyEvent* event) {
  const int key = event->key();
  if (event->matches(QKeySequence::Undo)) {
    undo();
    return;
  }
  if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return QWidget::keyPressEvent(event);
  double dx = 0, dy = 0;
  switch (key) {
    case Qt::Key_Left: dx = -kKeyStep; break;
    case Qt::Key_Right: dx = kKeyStep; break;
    case Qt::Key_Up: dy = kKeyStep; break;
    case Qt::Key_Down: dy = -kKeyStep; break;
    case Qt::Key_Space:
    case Qt::Key_Return:
    case Qt::Key_Enter:
      begin_stroke();
      add_at(to_widget(cursor_.x(), cursor_.y()));
      return;
    case Qt::Key_Delete:
    case Qt::Key_Backspace: {
      begin_stroke();
      const size_t before = points_.size();
      erase_at(to_widget(cursor_.x(), cursor_.y()));
      if (points_.size() == before) history_.pop_back();
      return;
    }
    case Qt::Key_E:
      set_erasing(!erasing_);
      Q_EMIT erasing_toggled(erasing_);
      return;
    default:
      if (key >= Qt::Key_0 && key < Qt::Key_0 + classes_) {
        set_current_class(key - Qt::Key_0);
        Q_EMIT class_picked(class_);
        return;
      }
      return QWidget::keyPressEvent(event);
  }
  cursor_ = {std::clamp(cursor_.x() + dx, -1.0, 1.0), std::clamp(cursor_.y() + dy, -1.0, 1.0)};
  update();
}

void PointCanvas::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF r = plane();
  p.fillRect(r, palette().base());
  p.setPen(QPen(palette().mid().color(), 1));
  p.drawRect(r);
  // Grid lines every 0.5, the axes darker.
  for (int i = -1; i <= 1; ++i) {
    const double v = i * 0.5;
    p.setPen(QPen(palette().mid().color(), i == 0 ? 1.5 : 0.5, i == 0 ? Qt::SolidLine : Qt::DotLine));
    p.drawLine(to_widget(-1, v), to_widget(1, v));
    p.drawLine(to_widget(v, -1), to_widget(v, 1));
  }
  p.setPen(QPen(palette().text().color(), 0.8));
  for (const DrawnPoint& pt : points_) {
    p.setBrush(class_color(pt.label));
    p.drawEllipse(to_widget(pt.x, pt.y), kPointRadius, kPointRadius);
  }
  if (points_.empty()) {
    p.setPen(palette().placeholderText().color());
    p.drawText(r, Qt::AlignCenter | Qt::TextWordWrap, "Click or drag to draw points");
  }
  if (hasFocus()) {  // the keyboard's cross-hair
    const QPointF c = to_widget(cursor_.x(), cursor_.y());
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(erasing_ ? palette().text().color() : class_color(class_), 1.5));
    p.drawLine(c - QPointF(8, 0), c + QPointF(8, 0));
    p.drawLine(c - QPointF(0, 8), c + QPointF(0, 8));
    if (erasing_) p.drawEllipse(c, kEraseRadius, kEraseRadius);
  }
}

}  // namespace mirror::ui
