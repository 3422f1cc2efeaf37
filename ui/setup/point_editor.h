#pragma once
// "Draw your own points": a 2-D dataset drawn by hand in the Data tab. Pick a class, click or drag
// to add points, right-click (or the Erase mode) to remove them, undo a stroke, clear; save the
// points as a CSV (header x,y,label) and train on them at once as the "table" dataset.
// GUI thread only.

#include <QString>
#include <QWidget>

#include <vector>

#include "ui/setup/point_canvas.h"

class QButtonGroup;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace mirror::ui {

class PointEditor : public QWidget {
  Q_OBJECT
 public:
  explicit PointEditor(QWidget* parent = nullptr);

  PointCanvas* canvas() const { return canvas_; }
  QSpinBox* classes_box() const { return classes_; }
  QPushButton* use_button() const { return use_; }
  QLineEdit* name_edit() const { return name_; }
  QString saved_file() const { return file_; }

  // Writes the points to `path` (replacing it, crash-safe) and remembers it as the file "Use these
  // points" writes. False, with the reason shown, when it cannot.
  bool save_csv(const QString& path);
  // Writes the points (to the file saved to, else to a new file named after the name field in
  // the points folder) and emits use_requested with its path. False when there is nothing to
  // train on (points of fewer than two classes) or the file cannot be written; the reason is shown.
  bool use_points();
  // Where "Use these points" writes when no file was chosen: <data dir>/mirror-workbench/points.
  static QString points_folder();

 Q_SIGNALS:
  void use_requested(const QString& csv_path);

 private:
  void update_state();
  void set_class_buttons(int classes);

  PointCanvas* canvas_;
  QSpinBox* classes_;
  QButtonGroup* class_group_;
  std::vector<QToolButton*> class_buttons_;
  QToolButton* erase_;
  QPushButton* undo_;
  QPushButton* clear_;
  QLineEdit* name_;
  QPushButton* save_;
  QPushButton* use_;
  QLabel* status_;
  QString file_;  // chosen with Save CSV; empty: none
};

}  // namespace mirror::ui
