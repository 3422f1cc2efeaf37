#include "ui/widgets/chart_widgets.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QHeaderView>
#include <QLegend>
#include <QPainter>
#include <QPolygonF>
#include <QScrollBar>
#include <QTableWidget>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numbers>

namespace mirror::ui {

namespace {
// Okabe, M. and Ito, K. (2008), "Color Universal Design (CUD): how to make figures and
// presentations that are friendly to colorblind people", https://jfly.uni-koeln.de/color/ —
// eight colours told apart with every common colour vision: black (0,0,0), orange (230,159,0),
// sky blue (86,180,233), bluish green (0,158,115), yellow (240,228,66), blue (0,114,178),
// vermillion (213,94,0), reddish purple (204,121,167).
//
// Ordered for a chart's background: yellow (1.3:1 on white) and black (1.6:1 on the dark theme)
// cannot be among the first six on both themes, so the first six are blue, orange, bluish green,
// reddish purple, sky blue and an ink colour (black on light, light grey on dark); vermillion
// and yellow come seventh and eighth (vermillion sits close to orange for a deuteranope: the
// line styles tell those two apart). Toned per theme to at least 3:1 against the plot (WCAG's
// contrast for graphics) by moving HSL lightness only: on white, orange (230,159,0) -> (194,134,0)
// and sky blue (86,180,233) -> (32,156,226); on the dark theme, blue (0,114,178) -> (0,127,198).
// tests/ui/widgets/test_run_palette.cpp checks both sets under simulated colour blindness.
const QColor kLightRuns[] = {QColor(0, 114, 178),  QColor(194, 134, 0),   QColor(0, 158, 115), QColor(204, 121, 167),
                             QColor(32, 156, 226), QColor(0, 0, 0),       QColor(213, 94, 0),  QColor(161, 150, 13)};
const QColor kDarkRuns[] = {QColor(0, 127, 198),  QColor(230, 159, 0),   QColor(0, 158, 115), QColor(204, 121, 167),
                            QColor(86, 180, 233), QColor(230, 230, 230), QColor(213, 94, 0),  QColor(240, 228, 66)};
static_assert(std::size(kLightRuns) == std::size(kDarkRuns));

// Solid, dashed, dotted, dash-dot, dash-dot-dot, then long dashes and long dash-dots (custom
// patterns, in pen widths) for the seventh and eighth.
const Qt::PenStyle kRunLines[] = {Qt::SolidLine,      Qt::DashLine,       Qt::DotLine,        Qt::DashDotLine,
                                  Qt::DashDotDotLine, Qt::CustomDashLine, Qt::CustomDashLine, Qt::CustomDashLine};
const QList<qreal> kCustomDashes[] = {{8, 3}, {8, 3, 1, 3, 1, 3, 1, 3}, {1, 2, 1, 2, 6, 2}};

const QScatterSeries::MarkerShape kRunMarkers[] = {
    QScatterSeries::MarkerShapeCircle,   QScatterSeries::MarkerShapeRectangle, QScatterSeries::MarkerShapeTriangle,
    QScatterSeries::MarkerShapeRotatedRectangle, QScatterSeries::MarkerShapeStar, QScatterSeries::MarkerShapePentagon};
}  // namespace

QColor palette_colour(size_t index, bool dark) {
  return (dark ? kDarkRuns : kLightRuns)[index % std::size(kLightRuns)];
}

Qt::PenStyle palette_line_style(size_t index) { return kRunLines[index % std::size(kRunLines)]; }

QScatterSeries::MarkerShape palette_marker(size_t index) { return kRunMarkers[index % std::size(kRunMarkers)]; }

QPen run_pen(size_t index, bool dark, double width) {
  QPen pen(palette_colour(index, dark), width);
  pen.setCapStyle(Qt::FlatCap);  // round caps would close a dotted line's gaps at projector widths
  const Qt::PenStyle style = palette_line_style(index);
  if (style == Qt::CustomDashLine) {
    const size_t first_custom = 5;
    pen.setDashPattern(kCustomDashes[(index % std::size(kRunLines)) - first_custom]);
  } else {
    pen.setStyle(style);
  }
  return pen;
}

double contrast_ratio(const QColor& a, const QColor& b) {
  auto luminance = [](const QColor& c) {
    auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
  };
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

std::vector<QColor> chart_background_colours(const QChart& chart) {
  std::vector<QColor> out;
  auto add = [&out](const QBrush& brush) {
    if (const QGradient* g = brush.gradient())
      for (const auto& stop : g->stops()) out.push_back(stop.second);
    else if (brush.style() != Qt::NoBrush)
      out.push_back(brush.color());
  };
  add(chart.backgroundBrush());
  if (chart.isPlotAreaBackgroundVisible()) add(chart.plotAreaBackgroundBrush());
  return out;
}

QColor faint_on(const QColor& colour, const QChart& chart) {
  const std::vector<QColor> backgrounds = chart_background_colours(chart);
  if (backgrounds.empty()) return colour;
  double r = 0, g = 0, b = 0;  // the background's mean, to fade towards
  for (const QColor& c : backgrounds) {
    r += c.redF();
    g += c.greenF();
    b += c.blueF();
  }
  const double n = static_cast<double>(backgrounds.size());
  QColor faded = colour;
  for (double t = 0.05; t <= 0.8; t += 0.05) {
    const QColor next = QColor::fromRgbF(static_cast<float>(colour.redF() * (1 - t) + r / n * t),
                                         static_cast<float>(colour.greenF() * (1 - t) + g / n * t),
                                         static_cast<float>(colour.blueF() * (1 - t) + b / n * t));
    if (std::any_of(backgrounds.begin(), backgrounds.end(), [&](const QColor& bg) { return contrast_ratio(next, bg) < 3.0; }))
      break;
    faded = next;
  }
  return faded;
}

QImage run_marker_image(size_t index, bool dark, int size) {
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(palette_colour(index, dark));
  const double r = size / 2.0, c = size / 2.0;
  auto polygon = [&](int corners, double rotate, bool star) {
    QPolygonF poly;
    const int points = star ? 2 * corners : corners;
    for (int k = 0; k < points; ++k) {
      const double a = rotate + 2 * std::numbers::pi * k / points;
      const double rr = star && k % 2 ? r * 0.45 : r;
      poly << QPointF(c + rr * std::sin(a), c - rr * std::cos(a));
    }
    p.drawPolygon(poly);
  };
  switch (palette_marker(index)) {
    case QScatterSeries::MarkerShapeRectangle: p.drawRect(QRectF(size * 0.1, size * 0.1, size * 0.8, size * 0.8)); break;
    case QScatterSeries::MarkerShapeTriangle: polygon(3, 0, false); break;
    case QScatterSeries::MarkerShapeRotatedRectangle: polygon(4, 0, false); break;
    case QScatterSeries::MarkerShapeStar: polygon(5, 0, true); break;
    case QScatterSeries::MarkerShapePentagon: polygon(5, 0, false); break;
    default: p.drawEllipse(QRectF(0, 0, size, size)); break;
  }
  return image;
}

QString elide_middle(const QString& name, int max_chars, int keep) {
  max_chars = std::max(max_chars, 2 * keep + 1);
  if (name.size() <= max_chars) return name;
  const int head = std::max(keep, (max_chars - 1) / 2);
  const int tail = std::max(keep, max_chars - 1 - head);
  return name.left(head) + QChar(0x2026) + name.right(tail);
}

void clear_chart(QChart* chart) {
  chart->removeAllSeries();
  for (auto* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
}

void apply_chart_fonts(QChart* chart) {
  const QFont base = QApplication::font();
  QFont title = base;
  title.setBold(true);
  if (base.pointSizeF() > 0) title.setPointSizeF(base.pointSizeF() * 1.1);
  chart->setTitleFont(title);
  chart->legend()->setFont(base);
  for (QAbstractAxis* axis : chart->axes()) {
    axis->setLabelsFont(base);
    axis->setTitleFont(base);
    // Qt shortens a label to "..." when the axis gives it less room than its font's height (a
    // short chart in projector mode); the charts choose fewer ticks instead (MetricChart::fit_y_ticks).
    axis->setTruncateLabels(false);
  }
}

QChartView* new_chart_view(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setMargins(QMargins(4, 4, 4, 4));
  // No frame around the chart inside its view: its pixels are the plot's (a projector's Runs page
  // has few to spare).
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setBackgroundRoundness(0);
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  // Low enough for the runs page to fit a 1280x720 projector; splitters give charts the room.
  view->setMinimumHeight(130);
  apply_chart_fonts(chart);
  return view;
}

namespace {
// A cell that sorts as a number against another number ("9" before "10", "0.003" before "0.03"),
// else as text; "-" (no value) after every number.
class ReadOnlyCell : public QTableWidgetItem {
 public:
  using QTableWidgetItem::QTableWidgetItem;
  bool operator<(const QTableWidgetItem& other) const override {
    bool a_number = false, b_number = false;
    const double a = text().toDouble(&a_number), b = other.text().toDouble(&b_number);
    if (a_number && b_number) return a < b;
    if (a_number != b_number) return a_number;
    return QTableWidgetItem::operator<(other);
  }
};
}  // namespace

QTableWidgetItem* read_only_cell(const QString& text) {
  auto* item = new ReadOnlyCell(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

void fit_height(QTableWidget* t) {
  int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth() + 4;
  int least = h;
  for (int r = 0; r < t->rowCount() && r < 8; ++r) {
    h += t->rowHeight(r);
    if (r < 2) least += t->rowHeight(r);
  }
  // A scroll bar under the rows when they are cut to 8 or wider than the table: it covered the last
  // row (the third run of a comparison on a 1280-pixel window).
  if (t->rowCount() > 8 || t->horizontalHeader()->length() > t->viewport()->width())
    h += t->horizontalScrollBar()->sizeHint().height();
  // At most as tall as its rows; on a short window (a 720-pixel projector, a lesson's six runs)
  // down to two rows, scrolled, rather than making the window taller than its screen.
  t->setMinimumHeight(std::min(std::max(least, 60), std::max(h, 60)));
  t->setMaximumHeight(std::max(h, 60));
}

double nice_step(double span, int ticks, bool whole) {
  if (!(span > 0) || !std::isfinite(span)) return whole ? 1.0 : 0.2;
  const double raw = span / std::max(1, ticks);
  const double decade = std::pow(10.0, std::floor(std::log10(raw)));
  double step = decade * 10;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (decade * m >= raw * (1 - 1e-9)) {
      step = decade * m;
      break;
    }
  return whole ? std::max(1.0, std::round(step)) : step;
}

void set_nice_range(QValueAxis* axis, double max, bool whole, bool round_up, int intervals) {
  const double span = max > 0 && std::isfinite(max) ? max : 1.0;
  const double step = nice_step(span, std::max(1, intervals), whole);
  // The axis lays out its ticks at every change: a range far wider than the old interval (or an
  // interval far finer than the old range) would make it build millions of them first. So the
  // interval grows before the range, and shrinks after it.
  const bool coarser = axis->tickType() != QValueAxis::TicksDynamic || step >= axis->tickInterval();
  if (coarser) axis->setTickInterval(step);
  axis->setTickAnchor(0);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setRange(0, round_up ? std::ceil(span / step - 1e-9) * step : span);
  if (!coarser) axis->setTickInterval(step);
  const int decimals = whole || step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  axis->setLabelFormat(QString("%.%1f").arg(decimals));
}

}  // namespace mirror::ui
