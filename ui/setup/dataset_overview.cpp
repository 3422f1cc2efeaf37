// The Data tab's view of a loaded dataset: its summary line, each class's examples in the
// training and validation splits, and a few examples (pictures, texts, or 2-D points drawn).
// Tested by tests/ui/setup/test_setup_panels.cpp and tests/ui/setup/test_own_data.cpp.
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>

#include <algorithm>

#include "mirror/data/dataset.h"
#include "mirror/data/preview.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/point_editor.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/plain_text.h"
#include "ui/widgets/point_plot.h"

namespace mirror::ui {

namespace {
constexpr int kSamples = 8;
constexpr int64_t kMaxPoints = 4000;  // of a 2-D dataset drawn on the Data tab
}  // namespace

void DatasetPanel::show_dataset() {
  const auto& info = dataset_->info();
  QString shape;
  for (size_t i = 0; i < info.input_shape.size(); ++i) shape += (i ? " × " : "") + QString::number(info.input_shape[i]);
  summary_->setText(QString("<b>%1</b>: %2 training / %3 validation examples of %4%5, %6 classes.")
                        .arg(QString::fromStdString(info.name).toHtmlEscaped(),  // one arg(): see learned_view
                             QString::number(dataset_->size(Split::kTrain)),
                             QString::number(dataset_->size(Split::kValidation)), shape,
                             info.kind == InputKind::kTokens ? QString(" token ids (below %1)").arg(info.vocab_size)
                                                             : QString(),
                             QString::number(info.num_classes)));
  const auto train = dataset_->class_counts(Split::kTrain);
  const auto val = dataset_->class_counts(Split::kValidation);
  classes_->setRowCount(static_cast<int>(info.num_classes));
  for (int k = 0; k < static_cast<int>(info.num_classes); ++k) {
    const QString name = k < static_cast<int>(info.class_names.size()) ? QString::fromStdString(info.class_names[static_cast<size_t>(k)])
                                                                       : QString::number(k);
    auto* name_item = new QTableWidgetItem(QString("%1 %2").arg(k).arg(name));
    name_item->setForeground(class_color(k));  // as the points and the Learned tab draw it
    classes_->setItem(k, 0, name_item);
    classes_->setItem(k, 1, new QTableWidgetItem(QString::number(train[static_cast<size_t>(k)])));
    classes_->setItem(k, 2, new QTableWidgetItem(QString::number(val[static_cast<size_t>(k)])));
  }
  // No taller than its rows (three classes leave room for the points below), at most kClassTableHeight.
  int rows_height = classes_->horizontalHeader()->height() + 2 * classes_->frameWidth();
  for (int k = 0; k < classes_->rowCount(); ++k) rows_height += classes_->rowHeight(k);
  classes_->setMaximumHeight(std::min(kClassTableHeight, rows_height));
  while (auto* item = samples_layout_->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  // 2-D points: a scatter plot of the training split rather than a few coordinates as text.
  const bool plane = info.kind == InputKind::kFloat && info.input_shape == std::vector<int64_t>{2};
  points_->setVisible(plane && !editor_->isVisibleTo(this));  // the editor draws the points it made
  if (plane) {
    std::vector<PointPlot::Point> points;
    for (const auto& p : preview_examples(*dataset_, Split::kTrain, kMaxPoints))
      points.push_back({p.values[0], p.values[1], p.label});
    points_->set_points(std::move(points));
    return;
  }
  const auto previews = preview_examples(*dataset_, Split::kTrain, kSamples);
  for (size_t i = 0; i < previews.size(); ++i) {
    const auto& p = previews[i];
    auto* label = new QLabel;
    label->setToolTip(literal(QString("example %1: class %2 %3").arg(p.index).arg(p.label).arg(QString::fromStdString(p.label_name))));
    if (!p.text.empty()) {
      // Class names and texts come from the dataset's files: escaped into the bold markup.
      label->setTextFormat(Qt::RichText);
      label->setText(QString("<b>%1</b>: %2")
                         .arg(QString::fromStdString(p.label_name).toHtmlEscaped())
                         .arg(QString::fromStdString(p.text).left(240).toHtmlEscaped()));
      label->setWordWrap(true);
      samples_layout_->addWidget(label, static_cast<int>(i), 0);
    } else if (p.shape.size() == 3) {
      label->setPixmap(example_thumbnail(p, 56));
      auto* caption = plain_label(QString::fromStdString(p.label_name));
      caption->setAlignment(Qt::AlignHCenter);
      samples_layout_->addWidget(label, 0, static_cast<int>(i));
      samples_layout_->addWidget(caption, 1, static_cast<int>(i));
    } else {
      delete label;
    }
  }
}

}  // namespace mirror::ui
