// The compared runs' curves: loss and a second metric by step, epoch, time or examples seen,
// smoothed, each run in its own colour and dashes, failed runs marked, or grouped by a setting
// (a mean line in a band from the lowest run to the highest); and legends that fit.
// Tested by tests/ui/runs/test_compare_view.cpp.
#include "ui/runs/compare_view.h"
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFontMetricsF>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QAreaSeries>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedBarSeries>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextStream>
#include <QTimer>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include "mirror/runs/run_groups.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/words.h"
#include "ui/run/run_metrics.h"
#include "ui/runs/compare_report.h"
#include "ui/runs/scaling_page.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/export.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

namespace {
bool failed(const RunRecord& r) { return r.status == "failed"; }

// A run's training series knows its name whole and shortened, for the legend to choose.
constexpr char kWholeName[] = "legend_whole_name";
constexpr char kShortName[] = "legend_short_name";
}  // namespace

void CompareView::rebuild_curves() {
  // One chart data model per run (the live charts' own), on this view's axis and smoothing.
  std::vector<RunMetrics> curves;
  curves.reserve(runs_.size());
  for (const auto& r : runs_) curves.push_back(RunMetrics::from_record(r, smoothing_, x_));
  const Metric metrics[2] = {Metric::kLoss, second_metric_};
  for (int m = 0; m < 2; ++m) {
    QChart* chart = charts_[m]->chart();
    // "Loss by step": the title names the x axis, whose own title would cost the plot a line.
    const QString what = m == 0 ? "Loss" : second_metric_ == Metric::kAccuracy ? "Accuracy" : "Learning rate";
    chart->setTitle(QString("%1 by %2").arg(what, x_axis_title(x_)));
    clear_chart(chart);
    chart->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);  // a piece of the run's line: its dashes too
    auto* x_axis = new QValueAxis;
    x_axis->setLabelFormat(x_ == XAxis::kStep || x_ == XAxis::kSamples ? "%.0f" : "%.1f");
    const bool log_axis = m == 0 && log_loss_;
    QAbstractAxis* y_axis = nullptr;
    if (log_axis) {
      auto* log_y = new QLogValueAxis;
      log_y->setBase(10);
      log_y->setLabelFormat("%.3g");
      y_axis = log_y;
    } else {
      auto* linear_y = new QValueAxis;
      linear_y->setLabelFormat("%.3g");
      y_axis = linear_y;
    }
    chart->addAxis(x_axis, Qt::AlignBottom);
    chart->addAxis(y_axis, Qt::AlignLeft);
    apply_chart_fonts(chart);
    double x_max = 0, y_lo = INFINITY, y_hi = -INFINITY;
    auto extend = [&](const QPointF& p) {
      if (!std::isfinite(p.y()) || (log_axis && p.y() <= 0)) return;
      x_max = std::max(x_max, p.x());
      y_lo = std::min(y_lo, p.y());
      y_hi = std::max(y_hi, p.y());
    };
    const int width = std::max(200, charts_[m]->width());
    // A failed run last, so that it is drawn over the others (a broken run hidden under the
    // healthy one it diverged from is the lesson's point); its legend entry says it failed.
    std::vector<size_t> order;
    if (!group_key_.empty())
      draw_groups(chart, x_axis, y_axis, curves, metrics[m], extend, width);
    else
      for (int pass = 0; pass < 2; ++pass)
        for (size_t i = 0; i < runs_.size(); ++i)
          if (failed(runs_[i]) == (pass == 1)) order.push_back(i);
    // Under the smoothed lines, each run's raw steps faintly (as TensorBoard draws them), where
    // there is smoothing to show: the curve's noise stays in sight. The axes follow the smoothed.
    if (smoothing_ > 0)
      for (const size_t i : order) {
        auto* raw = new QLineSeries;
        raw->setObjectName("raw");
        QColor faint = colour(i);
        faint.setAlpha(55);
        raw->setPen(QPen(faint, 1));
        raw->replace(decimate(curves[i].raw(metrics[m]), width / 2));
        chart->addSeries(raw);
        raw->attachAxis(x_axis);
        raw->attachAxis(y_axis);
        for (auto* marker_item : chart->legend()->markers(raw)) marker_item->setVisible(false);
      }
    for (const size_t i : order) {
      const RunRecord& r = runs_[i];
      const QVector<QPointF>& smoothed = curves[i].smoothed(metrics[m]);
      if (!smoothed.isEmpty()) x_max = std::max(x_max, smoothed.back().x());  // decimation may drop the last point
      const QVector<QPointF> points = decimate(smoothed, width / 2);
      for (const auto& p : points) extend(p);
      auto* train = new QLineSeries;
      const QString name = QString::fromStdString(r.display_name());
      // Names that differ only at the end (run folders "20261203-144512-...") keep their ends.
      const QString mark = failed(r) ? QString::fromUtf8("\u2715 failed: ") : QString();
      const QString shown = elide_middle(name);
      train->setProperty(kWholeName, mark + name);
      train->setProperty(kShortName, mark + shown);
      set_legend_name(train, mark + name);
      train->setPen(run_pen(i, dark_, line_width_));
      train->replace(points);
      connect(train, &QXYSeries::hovered, charts_[m], [this, name, m](const QPointF& p, bool on) {
        if (!on) return QToolTip::hideText();
        QToolTip::showText(QCursor::pos(), literal(QString("%1\n%2 %3: %4 %5")
                                                       .arg(name, x_axis_title(x_)).arg(p.x(), 0, 'g', 6)
                                                       .arg(m == 0 ? "loss" : second_choice_->currentText())
                                                       .arg(p.y(), 0, 'g', 5)));
      });
      chart->addSeries(train);
      train->attachAxis(x_axis);
      train->attachAxis(y_axis);
      const QVector<QPointF>& val_points = curves[i].val_epochs(metrics[m]);
      if (val_points.isEmpty()) continue;
      for (const auto& p : val_points) extend(p);
      // Validation: a thin line through small markers of the run's own shape, so that it neither
      // hides the training line nor depends on colour.
      auto* val = new QLineSeries;
      set_legend_name(val, shown + " (validation)");
      QPen thin(colour(i), std::max(1.0, line_width_ / 2));
      val->setPen(thin);
      const int marker = static_cast<int>(std::lround(2 * line_width_ + 3));
      val->setMarkerSize(marker);
      val->setLightMarker(run_marker_image(i, dark_, marker));
      val->setPointsVisible(true);
      val->replace(val_points);
      chart->addSeries(val);
      val->attachAxis(x_axis);
      val->attachAxis(y_axis);
      // One legend entry per run: the table beside the charts shows each run's line and marker.
      for (auto* marker_item : chart->legend()->markers(val)) marker_item->setVisible(false);
    }
    if (!std::isfinite(y_lo)) {
      y_lo = 0;
      y_hi = 1;
    }
    if (log_axis) {
      static_cast<QLogValueAxis*>(y_axis)->setRange(y_lo * 0.9, y_hi * 1.1);
    } else {
      // A flat line still gets a readable axis.
      const double pad = std::max({1e-3, (y_hi - y_lo) * 0.05, y_hi == y_lo ? std::abs(y_hi) * 0.05 : 0.0});
      auto* linear_y = static_cast<QValueAxis*>(y_axis);
      const bool fraction = m == 1 && second_metric_ == Metric::kAccuracy;
      linear_y->setRange(std::max(0.0, y_lo - pad), fraction ? std::min(1.0, y_hi + pad) : y_hi + pad);
      linear_y->applyNiceNumbers();
    }
    set_nice_range(x_axis, x_max, /*whole=*/x_ == XAxis::kStep || x_ == XAxis::kSamples, /*round_up=*/false);
  }
  fit_legends();
}

void CompareView::draw_groups(QChart* chart, QAbstractAxis* x_axis, QAbstractAxis* y_axis,
                              const std::vector<RunMetrics>& curves, Metric metric,
                              const std::function<void(const QPointF&)>& extend, int width) {
  const auto attach = [&](QAbstractSeries* series) {
    chart->addSeries(series);
    series->attachAxis(x_axis);
    series->attachAxis(y_axis);
  };
  const auto groups = group_runs(runs_, group_key_);
  for (size_t g = 0; g < groups.size(); ++g) {
    std::vector<Curve> members;
    for (const size_t i : groups[g].runs) {
      const QVector<QPointF>& smoothed = curves[i].smoothed(metric);
      Curve c;
      c.reserve(static_cast<size_t>(smoothed.size()));
      for (const QPointF& p : smoothed) c.emplace_back(p.x(), p.y());
      members.push_back(std::move(c));
      if (!group_members_) continue;
      auto* member = new QLineSeries;  // each run of the group, thin and faint under its mean
      QColor faint = colour(g);
      faint.setAlpha(110);
      member->setPen(QPen(faint, 1));
      member->replace(decimate(smoothed, width / 2));
      attach(member);
      for (auto* item : chart->legend()->markers(member)) item->setVisible(false);
    }
    const CurveBand band = curve_band(members);
    if (band.x.empty()) continue;
    QVector<QPointF> mean, low, high;
    for (size_t k = 0; k < band.x.size(); ++k) {
      mean.append({band.x[k], band.mean[k]});
      low.append({band.x[k], band.low[k]});
      high.append({band.x[k], band.high[k]});
      extend(low.back());
      extend(high.back());
    }
    // The range: from the group's lowest to its highest run, in the group's colour, see-through.
    auto* upper = new QLineSeries;
    auto* lower = new QLineSeries;
    upper->replace(decimate(high, width / 2));
    lower->replace(decimate(low, width / 2));
    auto* range = new QAreaSeries(upper, lower);
    range->setObjectName("group_band");
    QColor fill = colour(g);
    fill.setAlpha(55);
    range->setBrush(fill);
    range->setPen(Qt::NoPen);
    attach(range);
    for (auto* item : chart->legend()->markers(range)) item->setVisible(false);
    auto* line = new QLineSeries;
    line->setObjectName("group_mean");
    const QString name = QString("%1 = %2 (N=%3)")
                             .arg(QString::fromStdString(group_key_), QString::fromStdString(groups[g].value))
                             .arg(band.runs);
    line->setProperty(kWholeName, name);
    line->setProperty(kShortName, QString("%1 (N=%2)").arg(QString::fromStdString(groups[g].value)).arg(band.runs));
    set_legend_name(line, name);
    line->setPen(run_pen(g, dark_, line_width_));
    line->replace(decimate(mean, width / 2));
    attach(line);
  }
}

void CompareView::fit_legends() {
  for (QChartView* v : charts_) {
    QLegend* legend = v->chart()->legend();
    // Each entry: its piece of line, a gap, its name, a gap (Qt's legend lays them out in one row).
    const QFontMetricsF fm(legend->font());
    const double room = v->chart()->size().width() - 16;
    QList<QAbstractSeries*> named;
    double whole = 0, shortened = 0;
    for (QLegendMarker* marker : legend->markers()) {
      // (Not marker->isVisible(): a hidden legend reports every marker hidden.)
      if (!marker->series()->property(kWholeName).isValid()) continue;
      named << marker->series();
      const double entry = 2.5 * fm.height() + fm.averageCharWidth();
      whole += entry + fm.horizontalAdvance(marker->series()->property(kWholeName).toString());
      shortened += entry + fm.horizontalAdvance(marker->series()->property(kShortName).toString());
    }
    // Whole names where they fit, else both ends of each ("20261203-14…lr0.1-batch64"); where not
    // even that fits, Qt would cut them to "l…": the table under the charts, whose swatches show
    // each run's line and marker, is the legend then.
    const char* use = whole <= room ? kWholeName : kShortName;
    for (QAbstractSeries* series : named) {
      const QString text = series->property(use).toString();
      if (series->name() != text.toHtmlEscaped()) set_legend_name(series, text);
    }
    // A short chart (a projector's 720 lines) keeps its height for the curves: the table is the
    // legend then too.
    const bool tall = v->height() >= 12 * fm.height();
    const bool fits = (shortened <= room || whole <= room) && tall;
    if (legend->isVisible() != fits) legend->setVisible(fits);
  }
}

}  // namespace mirror::ui
