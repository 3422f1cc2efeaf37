#pragma once
// The scaling page of the comparison: throughput (the median of the tries, a box from the slowest
// to the fastest) against perfect scaling with the efficiency, where each step's time goes
// (compute, all-reduce, update, other), the numbers as a table, and a paragraph that reads them,
// or says why they cannot be read (tries that disagree, a busy machine), with the baseline and
// the load average the runs saw. Beside the measured boxes, the what-if (runs/predict.h): a model
// fitted to the study's step timelines predicts the throughput at the measured counts and on
// to 512 devices over a link the person picks, and a sentence says from which count the
// all-reduce would take longer than the compute.

#include <QWidget>

#include <optional>
#include <string>
#include <vector>

#include "mirror/runs/compare.h"
#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"

class QChartView;
class QComboBox;
class QLabel;
class QTableWidget;

namespace mirror::ui {

class ReadingWithDetails;

class ScalingPage : public QWidget {
  Q_OBJECT
 public:
  explicit ScalingPage(QWidget* parent = nullptr);
  // Measures `runs` (scaling_study), fits the what-if to their timelines and redraws. GUI thread only.
  void set_runs(const std::vector<RunRecord>& runs);
  void set_dark(bool dark);
  // Two or more runs: something to compare.
  // A scaling study: two or more runs on different replica counts. Runs that differ in anything
  // else (a learning rate, say) are compared on the curves page, and a report leaves this out.
  bool has_study() const;
  const ScalingStudy& study() const { return study_; }
  QChartView* throughput_chart() const { return throughput_chart_; }
  // The throughput chart's key, under it: every series by its whole name with its colour and line
  // (the chart is half the page wide: a legend inside it cut the names to "me…").
  QLabel* throughput_key() const { return throughput_key_; }
  QChartView* breakdown_chart() const { return breakdown_chart_; }
  QTableWidget* table() const { return table_; }
  QLabel* text() const { return text_; }
  // The paragraph with its "Details" toggle (H7: the technical figures one click away).
  ReadingWithDetails* reading() const { return reading_; }

  // The what-if. link_choice(): "as measured here" (the link the study's all-reduces showed),
  // then the presets of link_presets(); choosing one predicts again. prediction(): the current
  // one, nullopt when there is none (no study, or runs without timelines: prediction_reading()
  // says why). whatif_chart(): predicted samples/s from 1 to 512 devices, the measured medians on
  // it. prediction_reading(): what the what-if says in words a student follows, the fitted
  // figures behind its Details.
  QComboBox* link_choice() const { return link_choice_; }
  QChartView* whatif_chart() const { return whatif_chart_; }
  ReadingWithDetails* prediction_reading() const { return prediction_reading_; }
  const std::optional<Prediction>& prediction() const { return prediction_; }

 private:
  void redraw();             // the reading, the table and every chart, from study_ and prediction_
  void fill_table();
  void draw_throughput();    // the measured boxes, perfect scaling, the prediction, the efficiency
  void draw_breakdown();     // each count's step in its phases
  void repredict();          // prediction_ from model_ over the chosen link
  void draw_whatif();
  std::string prediction_words() const;  // the figures: where it becomes communication-bound, and why
  std::string prediction_plain() const;  // the same in plain words; empty without a prediction

  bool dark_ = false;

  ScalingStudy study_;
  std::optional<FittedModel> model_;   // fitted to the study's runs; nullopt: fit_error_ says why
  Scaling scaling_ = Scaling::kStrong; // what the prediction keeps (study_scaling of the runs)
  std::vector<int> device_counts_;     // what it lists (study_device_counts of the runs)
  std::string fit_error_;
  std::optional<Prediction> prediction_;
  std::string prediction_error_;
  QChartView* throughput_chart_;
  QLabel* throughput_key_;
  QChartView* breakdown_chart_;
  QTableWidget* table_;
  ReadingWithDetails* reading_;
  QLabel* text_;  // reading_'s paragraph
  QComboBox* link_choice_;
  QChartView* whatif_chart_;
  ReadingWithDetails* prediction_reading_;
  QWidget* whatif_row_;  // the link to assume and the sentence, under the charts
};

}  // namespace mirror::ui
