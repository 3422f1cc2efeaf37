#pragma once
// The scaling page of the comparison: throughput (the median of the tries, a box from the slowest
// to the fastest) against perfect scaling with the efficiency, where each step's time goes
// (compute, all-reduce, update, other), the numbers as a table, and a paragraph that reads them,
// or says why they cannot be read (tries that disagree, a busy machine), with the baseline and
// the load average the runs saw.

#include <QWidget>

#include <vector>

#include "mirror/runs/compare.h"
#include "mirror/runs/run_reader.h"

class QChartView;
class QLabel;
class QTableWidget;

namespace mirror::ui {

class ScalingPage : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingPage(QWidget* parent = nullptr);
  // Measures `runs` (scaling_study) and redraws. GUI thread only.
  void set_runs(const std::vector<RunRecord>& runs);
  void set_dark(bool dark);
  // Two or more runs: something to compare.
  // A scaling study: two or more runs on different replica counts. Runs that differ in anything
  // else (a learning rate, say) are compared on the curves page, and a report leaves this out.
  bool has_study() const;
  const ScalingStudy& study() const { return study_; }
  QChartView* throughput_chart() const { return throughput_chart_; }
  QChartView* breakdown_chart() const { return breakdown_chart_; }
  QTableWidget* table() const { return table_; }
  QLabel* text() const { return text_; }

 private:
  void redraw();

  ScalingStudy study_;
  QChartView* throughput_chart_;
  QChartView* breakdown_chart_;
  QTableWidget* table_;
  QLabel* text_;
};

}  // namespace mirror::ui
