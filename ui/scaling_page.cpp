#include "ui/scaling_page.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "ui/chart_widgets.h"

namespace mirror::ui {

ScalingPage::ScalingPage(QWidget* parent) : QWidget(parent) {
  throughput_chart_ = new_chart_view("Throughput and scaling efficiency");
  breakdown_chart_ = new_chart_view("Mean step time (ms): where it goes");
  table_ = new QTableWidget;
  table_->setObjectName("scaling_table");
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  text_ = new QLabel;
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(throughput_chart_);
  charts->addWidget(breakdown_chart_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(charts, 3);
  layout->addWidget(text_);
  layout->addWidget(table_, 1);
}

void ScalingPage::set_runs(const std::vector<RunRecord>& runs) {
  scaling_ = scaling_rows(runs);
  redraw();
}

void ScalingPage::set_dark(bool dark) {
  for (QChartView* v : {throughput_chart_, breakdown_chart_})
    v->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  redraw();  // a theme recolours the series: give the phases their colours back
}

bool ScalingPage::has_study() const {
  for (const auto& row : scaling_)
    if (row.replicas != scaling_.front().replicas) return true;
  return false;
}

void ScalingPage::redraw() {
  bool replicas_differ = false;
  for (const auto& row : scaling_) replicas_differ = replicas_differ || row.replicas != scaling_.front().replicas;
  text_->setText(scaling_.size() < 2 ? "Select two or more runs, ideally the same config on different device counts."
                         : !replicas_differ ? "These runs all use the same number of replicas; the numbers below compare their speed only."
                                            : QString::fromStdString(explain_scaling(scaling_)));

  const QStringList header = {"run", "replicas", "samples/s", "speed-up", "ideal", "efficiency", "step ms",
                              "compute ms", "all-reduce ms", "update ms", "other ms"};
  table_->clear();
  table_->setColumnCount(static_cast<int>(header.size()));
  table_->setRowCount(static_cast<int>(scaling_.size()));
  table_->setHorizontalHeaderLabels(header);
  for (size_t r = 0; r < scaling_.size(); ++r) {
    const ScalingRow& s = scaling_[r];
    const QStringList cells = {QString::fromStdString(s.run), QString::number(s.replicas),
                               QString::number(s.samples_per_sec, 'f', 0), QString::number(s.speedup, 'f', 2),
                               QString::number(s.ideal_speedup, 'f', 2), QString("%1%").arg(100 * s.efficiency, 0, 'f', 0),
                               QString::number(s.step_ms, 'f', 2), QString::number(s.compute_ms, 'f', 2),
                               QString::number(s.allreduce_ms, 'f', 2), QString::number(s.update_ms, 'f', 2),
                               QString::number(s.other_ms, 'f', 2)};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(static_cast<int>(r), c, read_only_cell(cells[c]));
  }
  table_->resizeColumnsToContents();
  fit_height(table_);

  QStringList categories;
  for (const auto& s : scaling_) categories << QString("%1 replica%2").arg(s.replicas).arg(s.replicas == 1 ? "" : "s");
  if (categories.removeDuplicates() > 0) {  // several runs per count: name them
    categories.clear();
    for (const auto& s : scaling_) categories << QString("%1: %2").arg(s.replicas).arg(QString::fromStdString(s.run));
  }
  auto reset = [](QChart* chart) {
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
      chart->removeAxis(axis);
      delete axis;
    }
  };
  auto attach = [&categories](QChart* chart, QAbstractBarSeries* series, const QString& y_title, double y_max) {
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setTitleText(y_title);
    y->setLabelFormat(y_max >= 1000 ? "%.0f" : "%.3g");
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    y->setRange(0, y_max > 0 && std::isfinite(y_max) ? 1.1 * y_max : 1.0);
    y->applyNiceNumbers();
  };
  QChart* throughput = throughput_chart_->chart();
  reset(throughput);
  auto* bars = new QBarSeries;
  auto* measured = new QBarSet("measured");
  auto* ideal = new QBarSet("perfect scaling");
  measured->setColor(palette_colour(0));
  ideal->setColor(QColor(200, 200, 200));
  const double base = scaling_.empty() ? 0 : scaling_.front().samples_per_sec;
  double top = 0;
  for (const auto& s : scaling_) {
    *measured << s.samples_per_sec;
    *ideal << base * s.ideal_speedup;
    top = std::max({top, s.samples_per_sec, base * s.ideal_speedup});
  }
  bars->append(measured);
  bars->append(ideal);
  attach(throughput, bars, "samples/s", top);
  // Scaling efficiency on its own axis, over the same categories.
  auto* efficiency = new QLineSeries;
  efficiency->setName("efficiency (%)");
  efficiency->setPen(QPen(palette_colour(3), 2));
  efficiency->setPointsVisible(true);
  efficiency->setPointLabelsVisible(true);
  efficiency->setPointLabelsFormat("@yPoint%");
  double most = 100;
  for (size_t i = 0; i < scaling_.size(); ++i) {
    efficiency->append(static_cast<double>(i), std::round(100 * scaling_[i].efficiency));
    most = std::max(most, 100 * scaling_[i].efficiency);
  }
  throughput->addSeries(efficiency);
  auto* percent = new QValueAxis;
  percent->setTitleText("efficiency %");
  percent->setLabelFormat("%.0f");
  const double percent_top = 50 * std::ceil(1.1 * most / 50);
  percent->setRange(0, percent_top);
  percent->setTickCount(std::min(9, static_cast<int>(percent_top / 50) + 1));
  throughput->addAxis(percent, Qt::AlignRight);
  efficiency->attachAxis(throughput->axes(Qt::Horizontal)[0]);
  efficiency->attachAxis(percent);

  QChart* breakdown = breakdown_chart_->chart();
  reset(breakdown);
  auto* stacked = new QStackedBarSeries;
  const std::pair<const char*, double ScalingRow::*> phases[] = {{"compute", &ScalingRow::compute_ms},
                                                                 {"all-reduce", &ScalingRow::allreduce_ms},
                                                                 {"update", &ScalingRow::update_ms},
                                                                 {"other", &ScalingRow::other_ms}};
  const QColor phase_colours[] = {palette_colour(0), palette_colour(3), palette_colour(2), palette_colour(7)};
  for (size_t p = 0; p < std::size(phases); ++p) {
    auto* set = new QBarSet(phases[p].first);
    set->setColor(phase_colours[p]);
    for (const auto& s : scaling_) *set << s.*(phases[p].second);
    stacked->append(set);
  }
  double longest = 0;
  for (const auto& s : scaling_) longest = std::max(longest, s.compute_ms + s.allreduce_ms + s.update_ms + s.other_ms);
  attach(breakdown, stacked, "ms per step", longest);
  for (QChart* chart : {throughput, breakdown}) apply_chart_fonts(chart);
}

}  // namespace mirror::ui
