#include "ui/chart_widgets.h"

#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLegend>
#include <QPainter>
#include <QScrollBar>
#include <QTableWidget>

#include <algorithm>
#include <iterator>

namespace mirror::ui {

namespace {
// Tableau's ten colours: distinct for the usual handful of runs, and friendly to most colour vision.
const QColor kPalette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
                           QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                           QColor(188, 189, 34),  QColor(23, 190, 207)};
}  // namespace

QColor palette_colour(size_t index) { return kPalette[index % std::size(kPalette)]; }

QChartView* new_chart_view(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart);
  view->setRenderHint(QPainter::Antialiasing);
  view->setMinimumHeight(220);
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

}  // namespace mirror::ui
