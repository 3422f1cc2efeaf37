#include "ui/widgets/point_plot.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

#include "ui/widgets/class_look.h"

namespace mirror::ui {

PointPlot::PointPlot(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void PointPlot::set_points(std::vector<Point> points) {
  points_ = std::move(points);
  fit_bounds();
  update();
}

void PointPlot::set_regions(const DecisionRegions& r, int64_t classes) {
  if (r.empty() || r.columns < 1 || r.rows < 1 || r.classes.size() != static_cast<size_t>(r.columns) * static_cast<size_t>(r.rows)) {
    regions_ = QImage();
    bounds_from_regions_ = false;
    fit_bounds();
    update();
    return;
  }
  regions_ = QImage(r.columns, r.rows, QImage::Format_ARGB32);
  // Confidence runs from 1/classes (a guess) to 1 (certain): map that onto the tint's strength.
  const double guess = classes > 0 ? 1.0 / static_cast<double>(classes) : 0.0;
  for (int row = 0; row < r.rows; ++row) {
    auto* line = reinterpret_cast<QRgb*>(regions_.scanLine(r.rows - 1 - row));  // row 0 is y_min: the bottom
    for (int c = 0; c < r.columns; ++c) {
      const size_t cell = static_cast<size_t>(row) * static_cast<size_t>(r.columns) + static_cast<size_t>(c);
      const double sure = std::clamp((static_cast<double>(r.confidence[cell]) - guess) / std::max(1e-9, 1.0 - guess), 0.0, 1.0);
      QColor tint = class_color(r.classes[cell]);
      tint.setAlphaF(static_cast<float>(0.15 + 0.45 * sure));
      line[c] = tint.rgba();
    }
  }
  x_min_ = r.x_min;
  x_max_ = r.x_max;
  y_min_ = r.y_min;
  y_max_ = r.y_max;
  bounds_from_regions_ = true;
  update();
}

void PointPlot::fit_bounds() {
  if (bounds_from_regions_ || points_.empty()) return;
  double x0 = points_[0].x, x1 = x0, y0 = points_[0].y, y1 = y0;
  for (const auto& p : points_) {
    x0 = std::min(x0, p.x);
    x1 = std::max(x1, p.x);
    y0 = std::min(y0, p.y);
    y1 = std::max(y1, p.y);
  }
  const double px = std::max(0.05 * (x1 - x0), 1e-3), py = std::max(0.05 * (y1 - y0), 1e-3);
  x_min_ = x0 - px;
  x_max_ = x1 + px;
  y_min_ = y0 - py;
  y_max_ = y1 + py;
}

QRectF PointPlot::plot_rect() const {
  // Square, centred across and at the top, under its heading (centred down, a tall plot left an
  // empty gap between the heading and the points), with room for the axis numbers below and to
  // the left.
  const double margin_left = fontMetrics().horizontalAdvance("-0.00") + 8;
  const double margin_bottom = fontMetrics().height() + 6;
  const double side = std::max(10.0, std::min(width() - margin_left - 8, height() - margin_bottom - 8));
  const double left = margin_left + (width() - margin_left - 8 - side) / 2;
  return {left, 4, side, side};
}

QPointF PointPlot::to_widget(double x, double y) const {
  const QRectF r = plot_rect();
  return {r.left() + (x - x_min_) / (x_max_ - x_min_) * r.width(), r.bottom() - (y - y_min_) / (y_max_ - y_min_) * r.height()};
}

QColor PointPlot::region_color_at(double x, double y) const {
  if (regions_.isNull() || x < x_min_ || x >= x_max_ || y < y_min_ || y >= y_max_) return {};
  const int c = static_cast<int>((x - x_min_) / (x_max_ - x_min_) * regions_.width());
  const int r = static_cast<int>((y_max_ - y) / (y_max_ - y_min_) * regions_.height());
  return QColor::fromRgba(regions_.pixel(std::clamp(c, 0, regions_.width() - 1), std::clamp(r, 0, regions_.height() - 1)));
}

void PointPlot::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF r = plot_rect();
  p.fillRect(r, palette().base());
  if (!regions_.isNull()) {
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.drawImage(r, regions_);
  }
  p.setPen(QPen(palette().color(QPalette::Mid), 1));
  p.drawRect(r);
  // Points: small enough to see the regions between them, outlined to stand out on them, and
  // shaped by class so that colour is not the only cue.
  const double radius = std::clamp(r.width() / 110.0, 2.5, 6.0);
  p.setPen(QPen(palette().color(QPalette::Text), 0.6));
  for (const auto& pt : points_) {
    p.setBrush(class_color(pt.label));
    draw_class_marker(p, to_widget(pt.x, pt.y), radius, pt.label);
  }
  // The plane's extent at the corners.
  p.setPen(palette().color(QPalette::Text));
  const auto num = [](double v) { return QString::number(v, 'f', 2); };
  p.drawText(QRectF(r.left(), r.bottom() + 2, r.width() / 2, fontMetrics().height()), Qt::AlignLeft, num(x_min_));
  p.drawText(QRectF(r.center().x(), r.bottom() + 2, r.width() / 2, fontMetrics().height()), Qt::AlignRight, num(x_max_));
  p.drawText(QRectF(0, r.top(), r.left() - 4, fontMetrics().height()), Qt::AlignRight, num(y_max_));
  p.drawText(QRectF(0, r.bottom() - fontMetrics().height(), r.left() - 4, fontMetrics().height()), Qt::AlignRight, num(y_min_));
}

}  // namespace mirror::ui
