#include "ui/runs/scaling_page.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QCategoryAxis>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>

#include "mirror/util/words.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/runs/reading_details.h"
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
  reading_ = new ReadingWithDetails;  // the paragraph in plain words, the figures behind "Details"
  text_ = reading_->text();
  whatif_chart_ = new_chart_view("What if: 1 to 512 devices");
  whatif_chart_->setObjectName("scaling_whatif");
  whatif_chart_->setMinimumHeight(200);
  // Too narrow for a legend beside the throughput chart: the sentence under both gives the key.
  whatif_chart_->chart()->legend()->setVisible(false);
  // Nor inside the throughput chart: its key goes under it, where the names wrap instead.
  throughput_chart_->chart()->legend()->setVisible(false);
  throughput_key_ = new QLabel;
  throughput_key_->setObjectName("scaling_throughput_key");
  throughput_key_->setTextFormat(Qt::RichText);  // our series names only, with their colours
  throughput_key_->setWordWrap(true);
  link_choice_ = new QComboBox;
  link_choice_->setObjectName("scaling_link");
  link_choice_->addItem("as measured here", QString());
  for (const LinkSpec& link : link_presets())
    if (!link.from_run) link_choice_->addItem(QString::fromStdString(link.describe()), QString::fromStdString(link.name));
  link_choice_->setToolTip("The link between devices that the prediction assumes");
  prediction_reading_ = new ReadingWithDetails;  // plain words, the fitted figures behind "Details"
  prediction_reading_->setObjectName("scaling_prediction");
  connect(link_choice_, &QComboBox::currentIndexChanged, this, [this] {
    repredict();
    redraw();
  });
  // The what-if beside the measured boxes, its link and sentence under both, then where the
  // measured steps' time went.
  auto* charts = new QSplitter(Qt::Horizontal);
  auto* throughput_box = new QWidget;
  auto* throughput_layout = new QVBoxLayout(throughput_box);
  throughput_layout->setContentsMargins(0, 0, 0, 0);
  throughput_layout->addWidget(throughput_chart_, 1);
  throughput_layout->addWidget(throughput_key_);
  charts->addWidget(throughput_box);
  charts->addWidget(whatif_chart_);
  charts->setSizes({1000, 1000});  // half each, whatever the charts' size hints
  auto* whatif_words = new QWidget;
  whatif_row_ = whatif_words;
  auto* words_layout = new QVBoxLayout(whatif_words);
  words_layout->setContentsMargins(0, 0, 0, 0);
  auto* link_row = new QHBoxLayout;
  link_row->addWidget(new QLabel("What if the devices were joined by"));
  link_row->addWidget(link_choice_);
  link_row->addStretch(1);
  words_layout->addLayout(link_row);
  words_layout->addWidget(prediction_reading_);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(charts, 3);
  layout->addWidget(whatif_words);
  layout->addWidget(breakdown_chart_, 3);
  layout->addWidget(reading_);
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

namespace {

// A chart's key in words: each named series' line (or box) drawn in text in its colour, then its
// whole name. Names are ours, not the user's.
QString chart_key(const QChart* chart) {
  QStringList entries;
  for (const QAbstractSeries* s : chart->series()) {
    if (s->name().isEmpty()) continue;
    QColor colour;
    QString mark = "■";
    if (const auto* line = qobject_cast<const QLineSeries*>(s)) {
      colour = line->pen().color();
      switch (line->pen().style()) {
        case Qt::DashLine: mark = "– –"; break;
        case Qt::DotLine: mark = "···"; break;
        case Qt::DashDotLine: mark = "–·–"; break;
        default: mark = "—"; break;
      }
    } else if (const auto* box = qobject_cast<const QBoxPlotSeries*>(s)) {
      colour = box->pen().color();
      mark = "▭";
    }
    entries << QString("<span style=\"color:%1\"><b>%2</b></span>&nbsp;%3")
                   .arg(colour.name(), mark, s->name().toHtmlEscaped().replace(' ', "&nbsp;"));
  }
  return entries.join(" &nbsp; ");
}

// The predicted point for `devices`, nullptr when it was not predicted.
const auto* predicted_at(const Prediction& prediction, int devices) {
  for (const auto& p : prediction.points)
    if (p.devices == devices) return &p;
  return static_cast<decltype(&prediction.points.front())>(nullptr);
}

}  // namespace

void ScalingPage::set_runs(const std::vector<RunRecord>& runs) {
  study_ = scaling_study(runs);
  model_.reset();
  fit_error_.clear();
  scaling_ = study_scaling(runs);
  device_counts_ = study_device_counts(runs);
  if (has_study() && !study_.mixed) {
    try {
      model_ = fit_study(runs);
    } catch (const std::exception& e) {
      fit_error_ = e.what();
    }
  }
  repredict();
  redraw();
}

void ScalingPage::repredict() {
  prediction_.reset();
  prediction_error_.clear();
  if (!model_) return;
  PredictOptions options;
  // As `mirrortrain predict` does for the same runs: a study's runs share their global batch.
  options.scaling = scaling_;
  options.devices = device_counts_;
  const std::string chosen = link_choice_->currentData().toString().toStdString();
  if (!chosen.empty()) options.link = find_link_preset(chosen);
  try {
    prediction_ = predict(*model_, options);
  } catch (const std::exception& e) {
    prediction_error_ = e.what();
  }
}

void ScalingPage::set_dark(bool dark) {
  dark_ = dark;
  for (QChartView* v : {throughput_chart_, breakdown_chart_, whatif_chart_})
    v->chart()->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  redraw();  // a theme recolours the series: give the phases their colours back
}

bool ScalingPage::has_study() const { return study_.points.size() >= 2; }

namespace {
// Adds `series` over one category per measured count (x) and a value axis from 0 to y_max (y).
void attach_over_counts(QChart* chart, QAbstractSeries* series, const std::vector<ScalingPoint>& points,
                        const QString& y_title, double y_max) {
  QStringList categories;
  for (const auto& s : points) categories << QString::fromStdString(counted(s.replicas, "replica"));
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
}
}  // namespace

void ScalingPage::redraw() {
  const auto& points = study_.points;
  const bool same_replicas = points.size() == 1 && study_.runs.size() >= 2;
  if (study_.mixed) reading_->set_text(QString::fromStdString(study_.reading));
  else if (same_replicas) reading_->set_text("These runs all use the same number of replicas; the numbers below compare their speed only.");
  else if (points.size() < 2) reading_->set_text("Select two or more runs, ideally the same config on different device counts.");
  else reading_->set_text(QString::fromStdString(study_.plain),
                          QString::fromStdString(study_.reading + " " + study_.baseline + " " + study_.load));

  whatif_row_->setVisible(has_study() && !study_.mixed);
  whatif_chart_->setVisible(prediction_.has_value());
  const std::string plain = prediction_plain();
  if (plain.empty())
    prediction_reading_->set_text(QString::fromStdString(prediction_words()));  // why there is none
  else
    prediction_reading_->set_text(QString::fromStdString(plain), QString::fromStdString(prediction_words()));

  fill_table();
  draw_throughput();
  draw_breakdown();
  draw_whatif();
}

void ScalingPage::fill_table() {
  const auto& points = study_.points;
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
}

void ScalingPage::draw_throughput() {
  const auto& points = study_.points;
  QChart* throughput = throughput_chart_->chart();
  clear_chart(throughput);
  // Each count's tries as a box from the slowest to the fastest, the median across it.
  auto* measured = new QBoxPlotSeries;
  measured->setName("measured tries (box: slowest to fastest, line: median)");
  measured->setBrush(palette_colour(0).lighter(150));
  measured->setPen(QPen(palette_colour(0), 2));
  const double base = points.empty() ? 0 : points.front().samples_per_sec;
  double top = 0;
  for (const auto& s : points) {
    measured->append(new QBoxSet(s.samples_per_sec_low, s.samples_per_sec_low, s.samples_per_sec, s.samples_per_sec_high,
                                 s.samples_per_sec_high));
    top = std::max({top, s.samples_per_sec_high, base * s.ideal_speedup});
  }
  // The what-if at the measured counts, over the same categories.
  std::vector<double> predicted_here;
  if (prediction_)
    for (const auto& s : points) {
      const auto* p = predicted_at(*prediction_, s.replicas);
      predicted_here.push_back(p ? p->samples_per_s : std::nan(""));
      if (p) top = std::max(top, p->samples_per_s);
    }
  attach_over_counts(throughput, measured, points, "samples/s", top);
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
  if (!predicted_here.empty()) {
    auto* predicted = new QLineSeries;
    predicted->setName("predicted");
    predicted->setPen(QPen(palette_colour(1, dark_), 2, Qt::DotLine));
    predicted->setPointsVisible(true);
    for (size_t i = 0; i < predicted_here.size(); ++i)
      if (std::isfinite(predicted_here[i])) predicted->append(static_cast<double>(i), predicted_here[i]);
    predicted->setObjectName("scaling_predicted");
    throughput->addSeries(predicted);
    predicted->attachAxis(x_axis);
    predicted->attachAxis(y_axis);
  }
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
  throughput->legend()->setVisible(false);  // a theme may bring it back: the key under the chart says it
  throughput_key_->setText(chart_key(throughput));
  apply_chart_fonts(throughput);
}

void ScalingPage::draw_breakdown() {
  const auto& points = study_.points;
  QChart* breakdown = breakdown_chart_->chart();
  clear_chart(breakdown);
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
  attach_over_counts(breakdown, stacked, points, "ms per step", longest);
  apply_chart_fonts(breakdown);
}

}  // namespace mirror::ui
