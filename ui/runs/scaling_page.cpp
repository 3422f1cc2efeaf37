#include "ui/runs/scaling_page.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "mirror/util/words.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

ScalingPage::ScalingPage(QWidget* parent) : QWidget(parent) {
  throughput_chart_ = new_chart_view("Throughput and scaling efficiency");
  breakdown_chart_ = new_chart_view("Median step time (ms): where it goes");
  throughput_chart_->setObjectName("scaling_throughput");
  breakdown_chart_->setObjectName("scaling_breakdown");
  // Below this the plot shrinks to a strip and the axes' titles and labels turn into dots; the
  // page scrolls instead (a page that insisted on its height made the window taller than a
  // 720-pixel projector).
  for (QChartView* v : {throughput_chart_, breakdown_chart_}) v->setMinimumHeight(200);
  table_ = new QTableWidget;
  table_->setObjectName("scaling_table");
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  text_ = plain_label({}, /*wrap=*/true);  // the reading names settings from run.json
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* charts = new QSplitter(Qt::Horizontal);
  charts->addWidget(throughput_chart_);
  charts->addWidget(breakdown_chart_);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(charts, 3);
  layout->addWidget(text_);
  layout->addWidget(table_, 1);
  auto* scroll = new QScrollArea;
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(scroll);
}

void ScalingPage::set_runs(const std::vector<RunRecord>& runs) {
  study_ = scaling_study(runs);
  redraw();
}

void ScalingPage::set_dark(bool dark) {
  for (QChartView* v : {throughput_chart_, breakdown_chart_})
    v->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  redraw();  // a theme recolours the series: give the phases their colours back
}

bool ScalingPage::has_study() const { return study_.points.size() >= 2; }

void ScalingPage::redraw() {
  const auto& points = study_.points;
  const bool same_replicas = points.size() == 1 && study_.runs.size() >= 2;
  text_->setText(study_.mixed ? QString::fromStdString(study_.reading)
                 : same_replicas ? "These runs all use the same number of replicas; the numbers below compare their speed only."
                 : points.size() < 2 ? "Select two or more runs, ideally the same config on different device counts."
                                      : QString::fromStdString(study_.reading + " " + study_.baseline + " " + study_.load));

  const QStringList header = {"replicas", "tries", "samples/s (median)", "slowest–fastest", "spread", "speed-up",
                              "ideal", "efficiency", "step ms", "compute ms", "all-reduce ms", "update ms", "other ms"};
  table_->clear();
  table_->setColumnCount(static_cast<int>(header.size()));
  table_->setRowCount(static_cast<int>(points.size()));
  table_->setHorizontalHeaderLabels(header);
  for (size_t r = 0; r < points.size(); ++r) {
    const ScalingPoint& s = points[r];
    const QStringList cells = {QString::number(s.replicas), QString::number(s.tries),
                               QString::number(s.samples_per_sec, 'f', 0),
                               QString("%1–%2").arg(s.samples_per_sec_low, 0, 'f', 0).arg(s.samples_per_sec_high, 0, 'f', 0),
                               s.tries > 1 ? QString("%1%").arg(100 * s.spread, 0, 'f', 0) : QString("–"),
                               QString::number(s.speedup, 'f', 2), QString::number(s.ideal_speedup, 'f', 2),
                               QString("%1%").arg(100 * s.efficiency, 0, 'f', 0), QString::number(s.step_ms, 'f', 2),
                               QString::number(s.compute_ms, 'f', 2), QString::number(s.allreduce_ms, 'f', 2),
                               QString::number(s.update_ms, 'f', 2), QString::number(s.other_ms, 'f', 2)};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(static_cast<int>(r), c, read_only_cell(cells[c]));
  }
  table_->resizeColumnsToContents();
  fit_height(table_);

  QStringList categories;
  for (const auto& s : points) categories << QString::fromStdString(counted(s.replicas, "replica"));
  auto reset = [](QChart* chart) {
    chart->removeAllSeries();
    for (auto* axis : chart->axes()) {
      chart->removeAxis(axis);
      delete axis;
    }
  };
  auto attach = [&categories](QChart* chart, QAbstractSeries* series, const QString& y_title, double y_max) {
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
  // Each count's tries as a box from the slowest to the fastest, the median across it.
  auto* measured = new QBoxPlotSeries;
  measured->setName("measured tries");  // the box spans the slowest to the fastest, the line is the median
  measured->setBrush(palette_colour(0).lighter(150));
  measured->setPen(QPen(palette_colour(0), 2));
  const double base = points.empty() ? 0 : points.front().samples_per_sec;
  double top = 0;
  for (const auto& s : points) {
    measured->append(new QBoxSet(s.samples_per_sec_low, s.samples_per_sec_low, s.samples_per_sec, s.samples_per_sec_high,
                                 s.samples_per_sec_high));
    top = std::max({top, s.samples_per_sec_high, base * s.ideal_speedup});
  }
  attach(throughput, measured, "samples/s", top);
  QAbstractAxis* x_axis = throughput->axes(Qt::Horizontal)[0];
  QAbstractAxis* y_axis = throughput->axes(Qt::Vertical)[0];
  auto* ideal = new QLineSeries;
  ideal->setName("perfect scaling");
  ideal->setPen(QPen(QColor(150, 150, 150), 2, Qt::DashLine));
  ideal->setPointsVisible(true);
  for (size_t i = 0; i < points.size(); ++i) ideal->append(static_cast<double>(i), base * points[i].ideal_speedup);
  throughput->addSeries(ideal);
  ideal->attachAxis(x_axis);
  ideal->attachAxis(y_axis);
  // Scaling efficiency on its own axis, over the same categories.
  auto* efficiency = new QLineSeries;
  efficiency->setName("efficiency (%)");
  efficiency->setPen(QPen(palette_colour(3), 2));
  efficiency->setPointsVisible(true);
  efficiency->setPointLabelsVisible(true);
  efficiency->setPointLabelsFormat("@yPoint%");
  double most = 100;
  for (size_t i = 0; i < points.size(); ++i) {
    efficiency->append(static_cast<double>(i), std::round(100 * points[i].efficiency));
    most = std::max(most, 100 * points[i].efficiency);
  }
  throughput->addSeries(efficiency);
  auto* percent = new QValueAxis;
  percent->setTitleText("efficiency %");
  percent->setLabelFormat("%.0f");
  // Ticks every 50 or 100 points, at most five: more do not fit a short chart (they turn into dots).
  const double percent_step = 1.1 * most <= 200 ? 50 : 100 * std::ceil(1.1 * most / 400);
  const double percent_top = percent_step * std::ceil(1.1 * most / percent_step);
  percent->setRange(0, percent_top);
  percent->setTickCount(static_cast<int>(percent_top / percent_step) + 1);
  throughput->addAxis(percent, Qt::AlignRight);
  efficiency->attachAxis(x_axis);
  efficiency->attachAxis(percent);

  QChart* breakdown = breakdown_chart_->chart();
  reset(breakdown);
  auto* stacked = new QStackedBarSeries;
  const std::pair<const char*, double ScalingPoint::*> phases[] = {{"compute", &ScalingPoint::compute_ms},
                                                                   {"all-reduce", &ScalingPoint::allreduce_ms},
                                                                   {"update", &ScalingPoint::update_ms},
                                                                   {"other", &ScalingPoint::other_ms}};
  const QColor phase_colours[] = {palette_colour(0), palette_colour(3), palette_colour(2), palette_colour(7)};
  for (size_t p = 0; p < std::size(phases); ++p) {
    auto* set = new QBarSet(phases[p].first);
    set->setColor(phase_colours[p]);
    for (const auto& s : points) *set << s.*(phases[p].second);
    stacked->append(set);
  }
  double longest = 0;
  for (const auto& s : points) longest = std::max(longest, s.compute_ms + s.allreduce_ms + s.update_ms + s.other_ms);
  attach(breakdown, stacked, "ms per step", longest);
  for (QChart* chart : {throughput, breakdown}) apply_chart_fonts(chart);
}

}  // namespace mirror::ui
