#include "ui/widgets/chart_widgets.h"

#include <QAbstractAxis>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLegend>
#include <QPainter>
#include <QScrollBar>
#include <QTableWidget>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace mirror::ui {

namespace {
// Tableau's ten colours: distinct for the usual handful of runs, and friendly to most colour vision.
const QColor kPalette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
                           QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                           QColor(188, 189, 34),  QColor(23, 190, 207)};
}  // namespace

QColor palette_colour(size_t index) { return kPalette[index % std::size(kPalette)]; }

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
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  // Low enough for the runs page to fit a 1280x720 projector; splitters give charts the room.
  view->setMinimumHeight(130);
  apply_chart_fonts(chart);
  return view;
}

QTableWidgetItem* read_only_cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

void fit_height(QTableWidget* t) {
  int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth() + 4;
  for (int r = 0; r < t->rowCount() && r < 8; ++r) h += t->rowHeight(r);
  if (t->rowCount() > 8) h += t->horizontalScrollBar()->sizeHint().height();
  t->setMinimumHeight(std::max(h, 60));
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

void set_nice_range(QValueAxis* axis, double max, bool whole, bool round_up) {
  const double span = max > 0 && std::isfinite(max) ? max : 1.0;
  const double step = nice_step(span, 5, whole);
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
