// Tested by tests/ui/setup/test_own_data.cpp.
#include "ui/setup/point_editor.h"

#include <QButtonGroup>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QShortcut>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>
#include <set>

#include "mirror/util/home.h"
#include "mirror/util/untrusted_text.h"
#include "ui/widgets/class_look.h"

namespace mirror::ui {

namespace {
QIcon class_icon(int k) {
  QPixmap pixmap(14, 14);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  p.setBrush(class_color(k));
  p.setPen(Qt::NoPen);
  p.drawEllipse(QRectF(1, 1, 12, 12));
  return QIcon(pixmap);
}
}  // namespace

PointEditor::PointEditor(QWidget* parent) : QWidget(parent) {
  setObjectName("point-editor");
  canvas_ = new PointCanvas;
  classes_ = new QSpinBox;
  classes_->setObjectName("point-classes");
  classes_->setRange(2, PointCanvas::kMaxClasses);
  classes_->setValue(2);
  classes_->setToolTip("How many classes to draw (2-6)");
  class_group_ = new QButtonGroup(this);
  class_group_->setExclusive(true);
  auto* class_row = new QHBoxLayout;
  class_row->addWidget(new QLabel("Classes"));
  class_row->addWidget(classes_);
  for (int k = 0; k < PointCanvas::kMaxClasses; ++k) {
    auto* b = new QToolButton;
    b->setObjectName(QString("class-%1").arg(k));
    b->setCheckable(true);
    b->setIcon(class_icon(k));
    b->setText(QString::number(k));
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setToolTip(QString("Draw points of class %1 (key %1)").arg(k));
    b->setAccessibleName(QString("Class %1").arg(k));
    class_group_->addButton(b, k);
    class_buttons_.push_back(b);
    class_row->addWidget(b);
  }
  class_buttons_[0]->setChecked(true);
  erase_ = new QToolButton;
  erase_->setText("Erase");
  erase_->setCheckable(true);
  erase_->setToolTip("Clicks and drags remove points (E); the right button always does");
  class_row->addWidget(erase_);
  class_row->addStretch();
  undo_ = new QPushButton("Undo");
  undo_->setToolTip("Undo the last stroke (Ctrl+Z)");
  clear_ = new QPushButton("Clear");
  name_ = new QLineEdit("my-points");
  name_->setObjectName("points-name");
  name_->setToolTip("The name of the file \"Use these points\" writes in the points folder");
  save_ = new QPushButton("Save CSV…");
  save_->setToolTip("Save the points as a CSV file (x,y,label)");
  use_ = new QPushButton("Use these points");
  use_->setObjectName("use-points");
  use_->setToolTip("Save the points to a new file in the points folder and load it as the dataset (\"table\"); "
                   "Train then trains on them");
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(undo_);
  buttons->addWidget(clear_);
  buttons->addWidget(name_, 1);
  buttons->addWidget(save_);
  buttons->addWidget(use_);
  status_ = new QLabel;
  status_->setTextFormat(Qt::PlainText);  // quotes paths
  status_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(class_row);
  layout->addWidget(canvas_, 1);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  auto* undo_key = new QShortcut(QKeySequence::Undo, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
  connect(undo_key, &QShortcut::activated, canvas_, &PointCanvas::undo);

  connect(classes_, &QSpinBox::valueChanged, this, [this](int n) {
    canvas_->set_classes(n);
    set_class_buttons(n);
  });
  connect(class_group_, &QButtonGroup::idClicked, canvas_, &PointCanvas::set_current_class);
  connect(canvas_, &PointCanvas::class_picked, this, [this](int k) { class_buttons_[static_cast<size_t>(k)]->setChecked(true); });
  connect(erase_, &QToolButton::toggled, canvas_, &PointCanvas::set_erasing);
  connect(canvas_, &PointCanvas::erasing_toggled, erase_, &QToolButton::setChecked);
  connect(undo_, &QPushButton::clicked, canvas_, &PointCanvas::undo);
  connect(clear_, &QPushButton::clicked, canvas_, &PointCanvas::clear);
  connect(canvas_, &PointCanvas::changed, this, &PointEditor::update_state);
  connect(save_, &QPushButton::clicked, this, [this] {
    const QString start = file_.isEmpty() ? QDir::home().filePath(QString::fromStdString(path_slug(name_->text().toStdString(), "points")) + ".csv") : file_;
    const QString path = QFileDialog::getSaveFileName(this, "Save points", start, "CSV files (*.csv)");
    if (!path.isEmpty()) save_csv(path);
  });
  connect(use_, &QPushButton::clicked, this, &PointEditor::use_points);
  set_class_buttons(classes_->value());
  update_state();
}

void PointEditor::set_class_buttons(int classes) {
  for (int k = 0; k < static_cast<int>(class_buttons_.size()); ++k) class_buttons_[static_cast<size_t>(k)]->setVisible(k < classes);
  class_buttons_[static_cast<size_t>(canvas_->current_class())]->setChecked(true);
}

void PointEditor::update_state() {
  const auto& points = canvas_->points();
  std::set<int> used;
  for (const DrawnPoint& p : points) used.insert(p.label);
  undo_->setEnabled(canvas_->can_undo());
  clear_->setEnabled(!points.empty());
  save_->setEnabled(!points.empty());
  use_->setEnabled(used.size() >= 2);
  status_->setText(used.size() >= 2 ? QString("%1 points in %2 classes").arg(points.size()).arg(used.size())
                                    : QString("%1 points: draw points of at least two classes to train on them").arg(points.size()));
}

bool PointEditor::save_csv(const QString& path) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(points_csv(canvas_->points())) < 0 || !file.commit()) {
    status_->setText(QString("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  file_ = path;
  status_->setText(QString("Saved %1 points to %2").arg(canvas_->points().size()).arg(path));
  return true;
}

QString PointEditor::points_folder() {
  return QDir(QString::fromStdString(user_data_dir())).filePath("mirror-workbench/points");
}

bool PointEditor::use_points() {
  update_state();
  if (!use_->isEnabled()) return false;
  QString path = file_;
  if (path.isEmpty()) {
    QString folder;
    try {
      folder = points_folder();
    } catch (const std::exception& e) {  // no home folder
      status_->setText(QString::fromStdString(e.what()));
      return false;
    }
    if (!QDir().mkpath(folder)) {
      status_->setText(QString("Cannot make the folder %1").arg(folder));
      return false;
    }
    // A new file each time: a run records the file it trained on, which must not change after.
    const QString stem = QString::fromStdString(path_slug(name_->text().toStdString(), "points")) + "-" +
                         QDateTime::currentDateTimeUtc().toString("yyyyMMdd-HHmmss");
    path = QDir(folder).filePath(stem + ".csv");
    for (int n = 2; QFileInfo::exists(path); ++n) path = QDir(folder).filePath(QString("%1-%2.csv").arg(stem).arg(n));
    if (!save_csv(path)) return false;
    file_.clear();  // the next use writes a new file again
  } else if (!save_csv(path)) {
    return false;
  }
  Q_EMIT use_requested(path);
  return true;
}

}  // namespace mirror::ui
