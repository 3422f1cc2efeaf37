#pragma once
// A confusion matrix drawn as a heat map: rows are the true classes, columns the predicted ones;
// right answers (the diagonal) in blue, mistakes in orange, stronger where there are more. Shows
// counts or row-normalised shares; hovering a cell tells its count and a few of its examples,
// clicking it selects it.

#include <QColor>
#include <QStringList>
#include <QWidget>

#include "mirror/train/evaluation.h"

namespace mirror::ui {

class ConfusionMatrixView : public QWidget {
  Q_OBJECT
 public:
  explicit ConfusionMatrixView(QWidget* parent = nullptr);

  // The hue of right answers (true) and of mistakes (false), at a cell's full strength.
  static QColor answer_colour(bool right);

  // Shows `evaluation` (copied) with `class_names` for its rows (numbers when shorter). Keeps the
  // selected cell when it still exists.
  void set_evaluation(const Evaluation& evaluation, const QStringList& class_names);
  void clear();
  // Row-normalised: each cell as its share of the true class's examples; else counts.
  void set_normalised(bool on);
  bool normalised() const { return normalised_; }
  const Evaluation& evaluation() const { return ev_; }

  // The cell (true class, predicted class) under widget point `pos`; {-1, -1} outside.
  std::pair<int64_t, int64_t> cell_at(QPoint pos) const;
  // The centre of a cell in the widget (tests click and hover there).
  QPoint cell_center(int64_t label, int64_t predicted) const;
  // What hovering the cell shows.
  QString cell_tooltip(int64_t label, int64_t predicted) const;
  // The text drawn in a cell: its count, or its share of the row in percent; empty when too small.
  QString cell_text(int64_t label, int64_t predicted) const;
  std::pair<int64_t, int64_t> selected() const { return selected_; }
  void select(int64_t label, int64_t predicted);

  QSize sizeHint() const override { return {420, 420}; }
  QSize minimumSizeHint() const override { return {220, 220}; }

 Q_SIGNALS:
  // A cell was clicked (or select() called); {-1, -1}: the selection was cleared.
  void cell_selected(qint64 label, qint64 predicted);

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  QRectF grid_rect() const;
  double cell_size() const;
  QString row_name(int64_t k) const;

  Evaluation ev_;
  QStringList names_;
  bool normalised_ = false;
  std::pair<int64_t, int64_t> selected_{-1, -1};
};

}  // namespace mirror::ui
