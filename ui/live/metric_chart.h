#pragma once
// One live chart (loss, accuracy or top-k accuracy): raw and smoothed training values per step,
// training and validation per epoch, on shared axes. Redrawn in batches by refresh().

#include <QChartView>

#include "ui/run/run_metrics.h"

class QLineSeries;
class QScatterSeries;
class QValueAxis;
class QLogValueAxis;

namespace mirror::ui {

// The series a chart can show or hide on its own (right-click the chart).
enum class ChartSeries { kRaw, kSmoothed, kEpochs };

class MetricChart : public QChartView {
  Q_OBJECT
 public:
  MetricChart(Metric metric, const QString& title, QWidget* parent = nullptr);

  // Replaces every series with `metrics`, decimated to this view's width. GUI thread only.
  void refresh(const RunMetrics& metrics);
  // Loss only: logarithmic y axis.
  void set_log_scale(bool on);
  bool log_scale() const { return log_scale_; }
  void set_line_width(double width);
  void set_dark(bool dark);
  // Projector mode: the legend goes below the plot (the plot keeps the width) and the chart's
  // text follows the application font.
  void set_projector(bool on);
  // Charts on one page share one legend (the series look the same in each).
  void set_legend_visible(bool on);
  // The legend as rich text for a label beside the chart: each series shown, a glyph in its
  // colour and line style, then its name, never cut short. An exported chart has its own legend.
  QString legend_html() const;
  // Shows or hides the raw per-step line, the smoothed line, or the per-epoch points (training and
  // validation) of this chart; the y axis fits what is shown. All are shown at first.
  void set_series_shown(ChartSeries series, bool on);
  bool series_shown(ChartSeries series) const;

 protected:
  // A short chart (a 720-pixel window) puts its legend below, where one row holds it.
  void resizeEvent(QResizeEvent* event) override;
  // Right-click: the series toggles and exporting this chart.
  void contextMenuEvent(QContextMenuEvent* event) override;

 public:
  // Writes the chart as PNG; returns false when the file cannot be written.
  bool export_png(const QString& path);
  // Writes the chart as SVG (vector, for papers and slides); false when it cannot be written.
  bool export_svg(const QString& path);
  Metric metric() const { return metric_; }
  // Points currently plotted in the raw training series (for tests).
  qsizetype plotted_points() const;
  // The y axis in use (linear or logarithmic), for tests.
  QAbstractAxis* y_axis() const;

 private:
  void place_legend();
  // The series in the theme's training and validation colours.
  void colour_series();
  void attach_y_axis();
  // Sets the linear y axis to [lo, hi] rounded to nice numbers, with as many ticks (2 to 5) as the
  // plot's height holds with a label's height between them.
  void fit_y_ticks(double lo, double hi);
  // The step axis up to `last`, with no more labels than the plot's width holds side by side
  // (three charts abreast on a projector crowded "1000 2000 3000" into one run of digits).
  void fit_x_ticks(double last);

  Metric metric_;
  const RunMetrics* last_ = nullptr;  // what refresh() drew last, to refit after a toggle
  bool shown_[3] = {true, true, true};
  bool projector_ = false;
  bool log_scale_ = false;
  bool dark_ = false;
  double line_width_ = 2.0;
  QLineSeries* raw_;
  QLineSeries* smooth_;
  QScatterSeries* train_epochs_;
  QLineSeries* val_epochs_;
  QValueAxis* x_axis_;
  QValueAxis* y_linear_;
  QLogValueAxis* y_log_;
  double x_last_ = 0;                    // the last step drawn
  double y_lo_ = 0, y_hi_ = 1;  // the linear axis' range before rounding to nice numbers
};

}  // namespace mirror::ui
