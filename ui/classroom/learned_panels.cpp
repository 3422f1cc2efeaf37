// The Learned tab's panels for one evaluation: accuracy per class, the most confused pairs, the
// decision regions of 2-D points, and examples with what the model predicted for them.
// Tested by tests/ui/classroom/test_learned_view.cpp.
#include <QCheckBox>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>

#include <algorithm>

#include "mirror/data/dataset.h"
#include "mirror/data/preview.h"
#include "ui/classroom/confusion_matrix.h"
#include "ui/classroom/learned_view.h"
#include "ui/run/live_run.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/plain_text.h"
#include "ui/widgets/point_plot.h"

namespace mirror::ui {

namespace {
constexpr size_t kConfusedPairs = 8;
constexpr int kTextChars = 160;  // of a decoded newswire shown under its prediction
constexpr size_t kFeaturesShown = 6;  // of a table row's

QString share_text(double share) { return QString::number(100.0 * share, 'f', 1) + "%"; }

// An example that is not a picture, in words: a text's first words (its vocabulary's), a point's
// place, a table row's first features. Empty for a picture.
QString example_words(const ExamplePreview& p) {
  if (!p.text.empty()) {
    const QString text = QString::fromStdString(p.text);
    return text.size() > kTextChars ? text.left(kTextChars) + "…" : text;
  }
  if (p.shape.size() != 1 || p.values.empty()) return {};
  if (p.values.size() == 2) return QString("at (%1, %2)").arg(p.values[0], 0, 'f', 2).arg(p.values[1], 0, 'f', 2);
  QStringList shown;
  for (size_t i = 0; i < std::min<size_t>(p.values.size(), kFeaturesShown); ++i) shown << QString::number(p.values[i], 'g', 4);
  if (p.values.size() > kFeaturesShown) shown << QString("… (%1 features)").arg(p.values.size());
  return "features " + shown.join(", ");
}
}  // namespace

void LearnedView::fill_per_class(const Evaluation& ev) {
  const QStringList names = class_names(ev);
  per_class_->setRowCount(static_cast<int>(ev.classes));
  for (int64_t k = 0; k < ev.classes; ++k) {
    const int row = static_cast<int>(k);
    const double acc = ev.class_accuracy(k);
    auto* name = new QTableWidgetItem(names[row]);
    name->setForeground(class_color(k));
    per_class_->setItem(row, 0, name);
    auto* n = new QTableWidgetItem(QString::number(ev.label_total(k)));
    n->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    per_class_->setItem(row, 1, n);
    auto* a = new QTableWidgetItem(acc < 0 ? QString("none to check") : share_text(acc));
    a->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    per_class_->setItem(row, 2, a);
  }
}

void LearnedView::fill_confused(const Evaluation& ev) {
  const QStringList names = class_names(ev);
  confused_->clear();
  const auto pairs = ev.most_confused(kConfusedPairs);
  if (pairs.empty()) {
    confused_->addItem(ev.total() > 0 ? "No mistakes: every validation example was predicted right." : "");
    return;
  }
  for (const auto& p : pairs) {
    const int64_t row = ev.label_total(p.label);
    auto* item = new QListWidgetItem(QString("%1 taken for %2: %3 (%4 of %1)")
                                         .arg(names[static_cast<int>(p.label)], names[static_cast<int>(p.predicted)])
                                         .arg(p.count)
                                         .arg(share_text(row > 0 ? static_cast<double>(p.count) / static_cast<double>(row) : 0)));
    item->setData(Qt::UserRole, static_cast<qlonglong>(p.label));
    item->setData(Qt::UserRole + 1, static_cast<qlonglong>(p.predicted));
    confused_->addItem(item);
  }
}

void LearnedView::show_regions(bool shown) {
  QWidget* box = regions_->parentWidget();
  box->setVisible(shown);
  // Beside the matrix, not under it: a 2-D set has few classes, so the matrix is narrow, and the
  // plane gets the column's height (under the matrix it was 145 px square at 1280x720 in
  // projector type). Without regions the matrix has the column.
  auto* column = qobject_cast<QSplitter*>(box->parentWidget());
  const Qt::Orientation wanted = shown ? Qt::Horizontal : Qt::Vertical;
  if (!column || column->orientation() == wanted) return;
  column->setOrientation(wanted);
  if (shown) column->setSizes({column->width() / 2, column->width() / 2});  // the plane is as tall as the column
}

void LearnedView::fill_regions(const Evaluation& ev) {
  if (ev.regions.empty()) {
    show_regions(false);
    return;
  }
  show_regions(true);
  regions_->set_regions(ev.regions, ev.classes);
  const Dataset* data = matching_dataset(ev);
  if (!data) {
    regions_->set_points({});
    return;
  }
  std::vector<int64_t> all(static_cast<size_t>(data->size(Split::kValidation)));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  std::vector<PointPlot::Point> points;
  for (const auto& e : preview_examples(*data, Split::kValidation, all))
    if (e.values.size() >= 2) points.push_back({e.values[0], e.values[1], e.label});
  regions_->set_points(std::move(points));
}

void LearnedView::fill_examples() {
  examples_->clear();
  const Evaluation* ev = shown();
  if (!ev) return;
  const auto [label, predicted] = matrix_->selected();
  const QStringList names = class_names(*ev);
  std::vector<const ExamplePrediction*> chosen;
  if (label >= 0) {
    chosen = ev->examples_in(label, predicted);
    examples_title_->setText(QString("<b>Examples: true %1, predicted %2</b> (the first %3 of %4)")
                                 .arg(names[static_cast<int>(label)].toHtmlEscaped(),
                                      names[static_cast<int>(predicted)].toHtmlEscaped(),
                                      QString::number(chosen.size()), QString::number(ev->count(label, predicted))));
  } else {
    for (const auto& e : ev->examples)
      if (!mistakes_->isChecked() || !e.correct()) chosen.push_back(&e);
    examples_title_->setText(mistakes_->isChecked() ? "<b>Examples the model got wrong</b> (a few of every mistake)"
                                                    : "<b>Examples</b> (a few of every cell; click a cell to pick)");
  }
  const Dataset* data = matching_dataset(*ev);
  std::vector<int64_t> indices;
  for (const auto* e : chosen) indices.push_back(e->index);
  std::vector<ExamplePreview> previews;
  if (data) previews = preview_examples(*data, Split::kValidation, indices);
  for (size_t i = 0; i < chosen.size(); ++i) {
    const ExamplePrediction& e = *chosen[i];
    QStringList guesses;
    for (size_t k = 0; k < e.classes.size(); ++k)
      guesses << QString("%1 %2%").arg(names[static_cast<int>(e.classes[k])],
                                       QString::number(100.0 * e.probabilities[k], 'f', 0));
    QString text = QString("%1 #%2, true %3\npredicted %4")
                       .arg(e.correct() ? "✓" : "✗")
                       .arg(e.index)
                       .arg(names[static_cast<int>(e.label)], guesses.join(" · "));
    auto* item = new QListWidgetItem;
    if (i < previews.size()) {
      const ExamplePreview& p = previews[i];
      if (const QPixmap thumb = example_thumbnail(p, kThumbnail); !thumb.isNull()) item->setIcon(thumb);
      else if (const QString words = example_words(p); !words.isEmpty()) text += "\n" + words;
    }
    item->setText(text);
    item->setData(Qt::UserRole, static_cast<qlonglong>(e.index));
    if (!e.correct()) item->setForeground(QColor(214, 39, 40));
    examples_->addItem(item);
  }
  if (chosen.empty())
    examples_->addItem(label >= 0 ? "No examples in this cell." : "The model got every recorded example right.");
}

}  // namespace mirror::ui
