#pragma once
// The comparison's Sweep page: a sweep read as a whole. Parallel coordinates (an axis per setting
// the runs differ on, then the result; a line per run, coloured from the worst result to the
// best) and each setting's importance: Spearman's rank correlation with the result. GUI thread.

#include <QPointF>
#include <QWidget>

#include <optional>

#include <vector>

#include "mirror/runs/run_reader.h"
#include "mirror/runs/setting_importance.h"

class QComboBox;
class QLabel;

namespace mirror::ui {

// The plot alone: axes left to right, each titled with its setting and importance.
class ParallelCoordinates : public QWidget {
  Q_OBJECT
 public:
  explicit ParallelCoordinates(QWidget* parent = nullptr);
  // `axes` as setting_axes gives them (the result last); `names` one per run; `higher_better`:
  // whether a larger result is the better one (accuracy), for the lines' colours.
  void set_axes(std::vector<SettingAxis> axes, std::vector<QString> names, bool higher_better);
  const std::vector<SettingAxis>& axes() const { return axes_; }
  // Where run `run` crosses axis `axis` in widget coordinates; nullopt where it has no value.
  std::optional<QPointF> point(size_t run, size_t axis) const;
  // Run `run`'s colour: from the worst result (the run palette's orange) to the best (its blue).
  QColor colour(size_t run) const;
  QSize sizeHint() const override { return {640, 360}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;  // a run's name and values as the tooltip of its line

 private:
  QRectF plot_rect() const;
  std::vector<SettingAxis> axes_;
  std::vector<QString> names_;
  bool higher_better_ = true;
};

class SweepPage : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPage(QWidget* parent = nullptr);
  void set_runs(const std::vector<RunRecord>& runs);
  // Worth a page: at least three runs that differ in a setting.
  bool has_sweep() const { return has_sweep_; }

  QComboBox* metric_choice() const { return metric_; }
  ParallelCoordinates* plot() const { return plot_; }
  QLabel* importance() const { return importance_; }  // the settings, most important first, in words

 private:
  void rebuild();
  std::vector<RunRecord> runs_;
  bool has_sweep_ = false;
  QComboBox* metric_;
  ParallelCoordinates* plot_;
  QLabel* importance_;
};

}  // namespace mirror::ui
