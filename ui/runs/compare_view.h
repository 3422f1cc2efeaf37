#pragma once
// Recorded runs overlaid on shared axes: loss and accuracy, training (smoothed, per step) thick
// and validation (per epoch) thin with markers, each run in its own colour, dash pattern and
// marker shape, a failed run drawn over the others, or grouped by a setting as a mean with its
// range; a table of the settings that differ and the results (sorted by a click on a column); a
// scaling page (throughput, speed-up, where each step's time goes); a sweep page (parallel
// coordinates, each setting's importance); export as PNG, SVG or a one-page HTML/Markdown report
// with the charts embedded.

#include <QColor>
#include <QWidget>

#include <functional>
#include <string>
#include <vector>

#include "mirror/runs/compare.h"
#include "mirror/runs/run_reader.h"
#include "ui/run/run_metrics.h"

class QAbstractAxis;
class QChart;
class QChartView;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTabWidget;
class QTableWidget;
class QToolButton;

namespace mirror::ui {
class ScalingPage;
class SweepPage;
}

namespace mirror::ui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  // Shows these runs (in this order; colours follow the order). GUI thread only.
  void set_runs(std::vector<RunRecord> runs);
  const std::vector<RunRecord>& runs() const { return runs_; }
  void set_x_axis(XAxis x);
  XAxis x_axis() const { return x_; }
  // TensorBoard-style smoothing of the per-step training lines, 0 (raw) to 0.99.
  void set_smoothing(double weight);
  // Logarithmic loss axis.
  void set_log_loss(bool on);
  // Runs drawn as groups: the runs sharing `key`'s value (a flattened config key on which they
  // differ, "optimizer.learning_rate") as one mean line with a band from their lowest to their
  // highest value and N in its name; with `members`, each run faintly under it. Empty: each run.
  // It applies while the compared runs differ on `key` (kept for runs compared later).
  void set_grouping(const std::string& key, bool members = false);
  const std::string& grouping() const { return group_key_; }  // the one applied now; empty: none
  // Dark chart theme; line width (thicker for a projector).
  void set_dark(bool dark);
  void set_line_width(double width);
  // The scaling page (throughput, speed-up, step time split) instead of the curves.
  void show_scaling(bool on);
  QColor colour(size_t run_index) const;

  // The comparison as one image: the curves page (or the scaling page when shown).
  bool export_png(const QString& path);
  bool export_svg(const QString& path);
  // A one-page report: title, runs with colours, every chart embedded (PNG, base64), the table
  // of differing settings and results, and the scaling numbers when the runs differ in replicas.
  // Markdown when `path` ends in .md, else HTML. False when it cannot be written.
  bool export_report(const QString& path);

  // For tests.
  QChartView* loss_chart() const { return charts_[0]; }
  QChartView* accuracy_chart() const { return charts_[1]; }
  QTableWidget* table() const { return table_; }
  QTableWidget* scaling_table() const;
  QLabel* scaling_text() const;
  QTabWidget* pages() const { return pages_; }
  QComboBox* group_choice() const { return group_choice_; }
  SweepPage* sweep_page() const { return sweep_page_; }
  // The picker: checked while the list of every run shows above the comparison. Clicking it asks
  // for the list (list_wanted); set_list_shown() keeps it in step without asking.
  QToolButton* list_button() const { return list_button_; }
  void set_list_shown(bool shown);

 Q_SIGNALS:
  void x_axis_changed(mirror::XAxis x);
  // The person asks for the runs list (to choose what is compared) or to fold it away.
  void list_wanted(bool shown);

 private:
  void rebuild_curves();
  // The groups' mean lines and bands of `metric` on one chart (compare_curves.cpp); `extend`
  // widens the axes' ranges to a point.
  void draw_groups(QChart* chart, QAbstractAxis* x_axis, QAbstractAxis* y_axis, const std::vector<RunMetrics>& curves,
                   Metric metric, const std::function<void(const QPointF&)>& extend, int width);
  void fill_group_choice();  // "each run", then "by" each setting the runs differ on
  void rebuild_table();
  void rebuild_scaling();
  // Each chart's legend shown where every run's name fits (whole or shortened) and the chart is
  // tall enough to spare a line (12 lines of legend type), else hidden (the table is the legend).
  void fit_legends();
  // The table fitted to its rows, and under the charts as tall as them, up to two fifths of the
  // page, until the person drags the handle between them.
  void place_table();
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

  std::vector<RunRecord> runs_;
  XAxis x_ = XAxis::kStep;
  double smoothing_ = 0.9;
  bool log_loss_ = false;
  bool dark_ = false;
  double line_width_ = 2.0;
  QToolButton* list_button_;
  QComboBox* x_choice_;
  QDoubleSpinBox* smoothing_choice_;
  QCheckBox* log_choice_;
  QLabel* hint_;
  QTabWidget* pages_;
  QWidget* curves_page_;
  ScalingPage* scaling_page_;
  SweepPage* sweep_page_;  // parallel coordinates and each setting's importance
  QChartView* charts_[2];
  QComboBox* second_choice_;
  QComboBox* group_choice_;
  std::string group_wanted_, group_key_;  // asked for; applied (the runs differ on it)
  bool group_members_ = false;
  Metric second_metric_ = Metric::kAccuracy;
  QTableWidget* table_;
  bool table_dragged_ = false;
};

}  // namespace mirror::ui
