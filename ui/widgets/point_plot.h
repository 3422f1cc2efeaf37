#pragma once
// A 2-D point set drawn as a scatter plot, one colour and marker shape per class, optionally over a model's
// decision regions (each region tinted with its class's colour, paler where the model is less
// sure). The Data tab shows a point dataset with it; the Learned tab adds the regions.

#include <QImage>
#include <QWidget>

#include <cstdint>
#include <vector>

#include "mirror/train/evaluation.h"

namespace mirror::ui {

class PointPlot : public QWidget {
  Q_OBJECT
 public:
  struct Point {
    double x = 0, y = 0;
    int64_t label = 0;
  };

  explicit PointPlot(QWidget* parent = nullptr);

  void set_points(std::vector<Point> points);
  // Draws `regions` behind the points (empty: none). `classes` sets how pale an unsure region is.
  void set_regions(const DecisionRegions& regions, int64_t classes);
  const std::vector<Point>& points() const { return points_; }
  bool has_regions() const { return !regions_.isNull(); }
  // The colour the regions give data point (x, y); invalid where no region is drawn.
  QColor region_color_at(double x, double y) const;
  // Where data point (x, y) lands in the widget.
  QPointF to_widget(double x, double y) const;

  QSize sizeHint() const override { return {360, 360}; }
  QSize minimumSizeHint() const override { return {160, 160}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QRectF plot_rect() const;
  void fit_bounds();

  std::vector<Point> points_;
  QImage regions_;  // one pixel per grid cell, row 0 at the top (y_max)
  double x_min_ = -1, x_max_ = 1, y_min_ = -1, y_max_ = 1;
  bool bounds_from_regions_ = false;
};

}  // namespace mirror::ui
