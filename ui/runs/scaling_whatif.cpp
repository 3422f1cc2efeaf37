// The scaling page's what-if: its chart (predicted samples/s from 1 to 512 devices, perfect
// scaling, the measured tries) and the sentence under it.
// Tested by tests/ui/runs/test_scaling_page.cpp.
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mirror/util/words.h"
#include "ui/runs/scaling_page.h"
#include "ui/widgets/chart_widgets.h"

namespace mirror::ui {

std::string ScalingPage::prediction_words() const {
  if (!has_study() || study_.mixed) return {};
  if (!model_) return "No prediction: " + fit_error_;
  if (!prediction_) return "No prediction over this link: " + prediction_error_;
  const FittedModel& m = prediction_->model;
  std::string words = fmt::format(
      "What if: {} Fitted to {} step timelines of these runs: {:.1f} µs of compute per example (as {} computed), "
      "{:.2f} ms for the update; the link: {}.",
      prediction_->bound_sentence(), m.steps_used, 1e6 * m.compute_per_example_s,
      counted(m.measured_replicas, "replica"), 1e3 * m.update_s, prediction_->comm.link.describe());
  const bool logical = std::all_of(study_.points.begin(), study_.points.end(),
                                   [](const auto& p) { return p.physical_devices == 1; });
  words += " On the what-if chart: the line is the prediction, grey dashes perfect scaling, the dots the measured "
           "medians (bars: slowest to fastest try)";
  words += prediction_->communication_bound_from > 0 ? ", the dash-dot line where the all-reduce overtakes the compute." : ".";
  if (logical && study_.points.size() >= 2 && prediction_->shares_cores)
    words += fmt::format(
        " These replicas are logical devices sharing one machine's {} cores, {} thread{} each: the prediction "
        "takes each measured count's own compute, and slows it further once more replicas ask for more threads "
        "than there are cores.",
        m.usable_cores, m.intra_op_threads, m.intra_op_threads == 1 ? "" : "s");
  else if (logical && study_.points.size() >= 2)
    words +=
        " These replicas are logical devices sharing one machine's cores; the prediction gives every device the "
        "compute it measured alone, as separate GPUs or machines would have, so the measured boxes fall below "
        "the predicted line where the replicas shared cores.";
  return words;
}

std::string ScalingPage::prediction_plain() const {
  if (!has_study() || study_.mixed || !model_ || !prediction_ || prediction_->points.empty()) return {};
  const Prediction& p = *prediction_;
  const auto fastest = std::max_element(p.points.begin(), p.points.end(), [](const auto& a, const auto& b) {
    return a.samples_per_s < b.samples_per_s;
  });
  const int peak = fastest->devices, last = p.points.back().devices, bound = p.communication_bound_from;
  std::string words = "What if you had more devices? ";
  if (peak < last) {
    words += fmt::format("Training would be fastest on {}; more devices than that make it slower, because ",
                         counted(peak, "device"));
    words += bound > 0 && bound <= 2 * peak
                 ? "sending the gradients between them takes longer than computing them."
                 : (p.shares_cores ? "they share this machine's cores and wait for each other."
                                   : "each has less to compute while the exchange of gradients grows.");
  } else if (bound > 0) {
    words += fmt::format("Each device added up to {} still makes training faster, but from {} on, sending the "
                         "gradients between them takes longer than computing them, so every device added helps "
                         "less.",
                         last, bound);
  } else {
    words += fmt::format("Each device added up to {} still makes training faster: computing the gradients takes "
                         "longer than sending them between the devices.",
                         last);
  }
  words += " On the chart: the line is the prediction, the grey dashes perfect scaling, the dots what you measured.";
  return words;
}

void ScalingPage::draw_whatif() {
  QChart* chart = whatif_chart_->chart();
  clear_chart(chart);
  chart->legend()->setVisible(false);  // the sentence beside gives the key (a theme may bring it back)
  if (!prediction_ || prediction_->points.empty()) return;
  const auto& predicted_points = prediction_->points;
  // Devices on a log-2 scale (x = log2 of the count), labelled at every third doubling so that the
  // labels stay apart on a narrow chart.
  const double most = predicted_points.back().devices;
  auto* x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  for (int k = 0; (1 << k) <= most; k += 3) x->append(QString::number(1 << k), k);
  x->setRange(-0.3, std::log2(most) + 0.3);
  x->setTitleText("devices");
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat("%.0f");
  y->setMinorTickCount(-1);
  y->setTitleText("samples/s");
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  double low = INFINITY, high = 0;  // of the prediction and the measures: the y axis' range
  auto add = [&](QXYSeries* series, bool sets_range) {
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    if (sets_range)
      for (const QPointF& p : series->points()) {
        low = std::min(low, p.y());
        high = std::max(high, p.y());
      }
  };
  auto* curve = new QLineSeries;
  curve->setObjectName("whatif_predicted");
  curve->setName("predicted");
  curve->setPen(QPen(palette_colour(1, dark_), 2));
  curve->setPointsVisible(true);
  for (const auto& p : predicted_points)
    if (p.samples_per_s > 0) curve->append(std::log2(p.devices), p.samples_per_s);
  add(curve, true);
  auto* ideal = new QLineSeries;
  ideal->setName("perfect");
  ideal->setPen(QPen(QColor(150, 150, 150), 1.5, Qt::DashLine));
  const double one = predicted_points.front().samples_per_s / predicted_points.front().devices;
  for (const auto& p : predicted_points) ideal->append(std::log2(p.devices), one * p.devices);
  add(ideal, false);  // it leaves the top of the chart, as perfect scaling leaves any real curve
  // The measured tries: the median as a dot, the slowest to the fastest as a bar through it.
  auto* medians = new QScatterSeries;
  medians->setObjectName("whatif_measured");
  medians->setName("measured");
  medians->setColor(palette_colour(0, dark_));
  medians->setMarkerSize(9);
  for (const auto& s : study_.points) medians->append(std::log2(s.replicas), s.samples_per_sec);
  add(medians, true);
  for (const auto& s : study_.points) {
    if (s.samples_per_sec_high <= s.samples_per_sec_low) continue;
    auto* range = new QLineSeries;
    range->setPen(QPen(palette_colour(0, dark_), 2));
    range->append(std::log2(s.replicas), s.samples_per_sec_low);
    range->append(std::log2(s.replicas), s.samples_per_sec_high);
    add(range, true);
  }
  if (!(high > 0)) return;
  const double y_low = std::pow(10, std::floor(std::log10(low))), y_high = std::pow(10, std::ceil(std::log10(1.5 * high)));
  y->setRange(y_low, y_high);
  if (prediction_->communication_bound_from > 0) {
    auto* bound = new QLineSeries;
    bound->setObjectName("whatif_bound");
    bound->setName(QString("comm.-bound from %1").arg(prediction_->communication_bound_from));
    bound->setPen(QPen(palette_colour(3, dark_), 1.5, Qt::DashDotLine));
    bound->append(std::log2(prediction_->communication_bound_from), y_low);
    bound->append(std::log2(prediction_->communication_bound_from), y_high);
    add(bound, false);
  }
  apply_chart_fonts(chart);
}

}  // namespace mirror::ui
