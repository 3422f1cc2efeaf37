#pragma once
// The drawing area of "Draw your own points" (point_editor.h): a square [-1, 1] × [-1, 1] plane
// where clicks and drags add points of the current class and the right button (or erasing) removes
// them; each stroke can be undone.
//
// Keyboard: the canvas takes focus (Tab); arrows move a cross-hair, Space or Enter adds a point
// there, Delete or Backspace erases around it, 0-5 pick a class, E toggles erasing, Ctrl+Z undoes
// the last stroke. GUI thread only.

#include <QByteArray>
#include <QWidget>

#include <vector>

namespace mirror::ui {

struct DrawnPoint {
  double x = 0, y = 0;  // in [-1, 1], y up
  int label = 0;
};

// The points as a CSV file's bytes: "x,y,label", then one row per point in drawing order.
QByteArray points_csv(const std::vector<DrawnPoint>& points);

class PointCanvas : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxPoints = 5000;
  static constexpr int kMaxClasses = 6;

  explicit PointCanvas(QWidget* parent = nullptr);

  const std::vector<DrawnPoint>& points() const { return points_; }
  // The class new points get, in [0, classes).
  void set_current_class(int k);
  int current_class() const { return class_; }
  // Removes the points of classes >= `classes` (undoable) and keeps the current class below it.
  void set_classes(int classes);
  int classes() const { return classes_; }
  void set_erasing(bool on);
  bool erasing() const { return erasing_; }
  void clear();  // undoable
  // Undoes the last stroke (a press to release, a key press, a clear); false when nothing is left.
  bool undo();
  bool can_undo() const { return !history_.empty(); }
  // Where data point (x, y) lands in the widget, and back.
  QPointF to_widget(double x, double y) const;
  QPointF to_data(const QPointF& widget) const;

  QSize sizeHint() const override { return {320, 320}; }
  QSize minimumSizeHint() const override { return {200, 200}; }

 Q_SIGNALS:
  void changed();              // the points changed
  void class_picked(int k);    // by a key
  void erasing_toggled(bool on);  // by a key

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  QRectF plane() const;
  void begin_stroke();
  void add_at(const QPointF& widget);
  void erase_at(const QPointF& widget);

  std::vector<DrawnPoint> points_;
  std::vector<std::vector<DrawnPoint>> history_;  // the points before each stroke
  int class_ = 0;
  int classes_ = 2;
  bool erasing_ = false;
  bool stroke_erases_ = false;  // the stroke under way (right button or Erase mode)
  bool in_stroke_ = false;
  QPointF last_added_;          // widget position of the stroke's last point
  QPointF cursor_{0, 0};        // the keyboard's cross-hair, in data coordinates
};

}  // namespace mirror::ui
