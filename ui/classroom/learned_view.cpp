#include "ui/classroom/learned_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "mirror/data/dataset.h"
#include "mirror/data/preview.h"
#include "mirror/data/registry.h"
#include "mirror/runs/compare.h"
#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_reader.h"
#include "mirror/train/config.h"
#include "mirror/util/json_fields.h"
#include "ui/classroom/confusion_matrix.h"
#include "ui/run/live_run.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/plain_text.h"
#include "ui/widgets/point_plot.h"

namespace mirror::ui {

namespace {
QString percent(double share) { return QString::number(100.0 * share, 'f', 1) + "%"; }

QLabel* heading(const QString& text) {
  auto* l = new QLabel(QString("<b>%1</b>").arg(text));
  l->setTextFormat(Qt::RichText);  // whatever is set later escapes the class names it quotes
  l->setWordWrap(true);
  return l;
}
}  // namespace

LearnedView::LearnedView(LiveRun* run, QWidget* parent) : QWidget(parent), run_(run) {
  summary_ = plain(new QLabel("Nothing validated yet: what the model has learned shows here after each epoch's validation."));
  summary_->setObjectName("learned-summary");
  summary_->setWordWrap(true);
  epoch_ = new QComboBox;
  epoch_->setToolTip("The validation to show: the latest follows the run as it trains");
  counts_ = new QComboBox;
  counts_->addItems({"Counts", "Share of the true class"});
  counts_->setToolTip("Cells as example counts, or as the share of their row (the true class) in percent");
  mistakes_ = new QCheckBox("Mistakes only");
  mistakes_->setToolTip("List only the examples the model got wrong");
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel("Validation"));
  bar->addWidget(epoch_);
  bar->addWidget(counts_);
  bar->addWidget(mistakes_);
  bar->addStretch(1);

  matrix_ = new ConfusionMatrixView;
  matrix_->setObjectName("confusion-matrix");
  regions_ = new PointPlot;
  regions_->setObjectName("decision-regions");
  regions_title_ = heading("Decision regions (paler where the model is less sure)");
  regions_->setToolTip("The class the model gives every point of the plane, tinted with that class's colour and "
                       "paler where it is less sure, behind the validation points");
  auto* left = new QSplitter(Qt::Vertical);
  auto* matrix_box = new QWidget;
  auto* matrix_layout = new QVBoxLayout(matrix_box);
  matrix_layout->setContentsMargins(0, 0, 0, 0);
  matrix_layout->addWidget(heading("Confusion matrix (rows: true class, columns: predicted)"));
  matrix_->setToolTip("Hover a cell for its count and examples; click it to list them");
  matrix_layout->addWidget(matrix_, 1);
  auto* regions_box = new QWidget;
  auto* regions_layout = new QVBoxLayout(regions_box);
  regions_layout->setContentsMargins(0, 0, 0, 0);
  regions_layout->addWidget(regions_title_);
  regions_layout->addWidget(regions_, 1);
  left->addWidget(matrix_box);
  left->addWidget(regions_box);
  regions_box->setVisible(false);  // shown beside the matrix for a 2-D set (show_regions)

  per_class_ = new QTableWidget(0, 3);
  per_class_->setObjectName("per-class-accuracy");
  per_class_->setHorizontalHeaderLabels({"Class", "Examples", "Accuracy"});
  per_class_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  per_class_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  per_class_->verticalHeader()->hide();
  per_class_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  per_class_->setSelectionBehavior(QAbstractItemView::SelectRows);
  confused_ = new QListWidget;
  confused_->setObjectName("most-confused");
  confused_->setToolTip("Click a pair to list its examples");
  confused_->setWordWrap(true);
  examples_title_ = heading("Examples");
  examples_ = new QListWidget;
  examples_->setObjectName("learned-examples");
  examples_->setIconSize(QSize(kThumbnail, kThumbnail));
  examples_->setWordWrap(true);
  examples_->setAlternatingRowColors(true);
  auto* right = new QSplitter(Qt::Vertical);
  const auto boxed = [](QLabel* title, QWidget* body) {
    auto* box = new QWidget;
    auto* l = new QVBoxLayout(box);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(title);
    l->addWidget(body, 1);
    return box;
  };
  right->addWidget(boxed(heading("Accuracy per class"), per_class_));
  right->addWidget(boxed(heading("Most confused"), confused_));
  right->addWidget(boxed(examples_title_, examples_));
  right->setStretchFactor(2, 2);
  right->setSizes({160, 140, 320});  // the examples, with their pictures, get the most

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(left);
  split->addWidget(right);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setSizes({500, 500});  // the plots are square: the lists get the width they leave
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(summary_);
  layout->addWidget(split, 1);

  connect(run_, &LiveRun::evaluations_changed, this, &LearnedView::on_evaluations_changed);
  connect(epoch_, qOverload<int>(&QComboBox::activated), this, [this](int index) {
    follow_latest_ = index == epoch_->count() - 1;
    show_evaluation();
  });
  connect(counts_, qOverload<int>(&QComboBox::currentIndexChanged), this, [this](int index) { matrix_->set_normalised(index == 1); });
  connect(mistakes_, &QCheckBox::toggled, this, &LearnedView::fill_examples);
  connect(matrix_, &ConfusionMatrixView::cell_selected, this, &LearnedView::fill_examples);
  connect(confused_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    matrix_->select(item->data(Qt::UserRole).toLongLong(), item->data(Qt::UserRole + 1).toLongLong());
  });
  connect(per_class_, &QTableWidget::cellClicked, this, [this](int row, int) { matrix_->select(row, row); });
  on_evaluations_changed();
}

void LearnedView::set_dataset(std::shared_ptr<const Dataset> dataset) {
  // The live run's own data stays with it: loading another dataset after it has validated must
  // not take its class names, examples and points away.
  if (recorded_dir_.isEmpty() && dataset_ && dataset_ != dataset) {
    const Evaluation* ev = shown();
    if (ev && fits(*dataset_, *ev)) run_dataset_ = dataset_;
  }
  dataset_ = std::move(dataset);
  show_evaluation();
}

const std::vector<Evaluation>& LearnedView::evaluations() const {
  return recorded_dir_.isEmpty() ? run_->evaluations() : recorded_;
}

bool LearnedView::show_recorded(const QString& dir) {
  std::vector<std::string> warnings;
  recorded_ = read_evaluations(dir.toStdString(), &warnings);
  recorded_dir_ = dir;
  recorded_dataset_.clear();
  recorded_class_names_.clear();
  recorded_content_hash_.clear();
  recorded_data_options_.clear();
  recorded_data_.reset();
  try {
    const RunRecord record = read_run(dir.toStdString());
    recorded_dataset_ = run_dataset_label(record);
    if (recorded_dataset_ == "-") recorded_dataset_.clear();  // not recorded: any dataset of its shape may be it
    recorded_class_names_ = record.class_names();
    if (const auto data = record.run.find("data"); data != record.run.end() && data->is_object())
      recorded_content_hash_ = json_string(*data, "content_hash");
    if (const auto config = record.run.find("config"); config != record.run.end() && config->is_object())
      if (const auto data = config->find("dataset"); data != config->end() && data->is_object() && data->contains("name"))
        recorded_data_options_ = config->dump();
  } catch (const std::exception&) {
  }
  follow_latest_ = true;
  list_epochs();
  load_recorded_data();
  if (recorded_.empty()) {
    summary_->setText(QString("%1 recorded no validations%2 (runs from before this version, or on data without a "
                              "validation split, have none).")
                          .arg(QDir(dir).dirName(),  // one arg(): a name holding "%2" stays as it is
                               warnings.empty() ? QString() : ": " + QString::fromStdString(warnings.front())));
    return false;
  }
  return true;
}

const Evaluation* LearnedView::shown() const {
  const auto& evs = evaluations();
  const int i = epoch_->currentIndex();
  if (evs.empty() || i < 0 || i >= static_cast<int>(evs.size())) return nullptr;
  return &evs[static_cast<size_t>(i)];
}

void LearnedView::on_evaluations_changed() {
  // Only a run that begins anew (nothing validated, running) takes the view back from a recorded
  // one; the validations of a run already going do not.
  if (!recorded_dir_.isEmpty()) {
    if (!run_->evaluations().empty() || !run_->running()) return;
    run_dataset_.reset();
    recorded_dir_.clear();
    recorded_.clear();
    recorded_class_names_.clear();
    recorded_data_.reset();
    follow_latest_ = true;
  }
  if (run_->running() && run_->evaluations().empty()) run_dataset_.reset();  // a new run, on the loaded data
  list_epochs();
}

void LearnedView::list_epochs() {
  const auto& evs = evaluations();
  const int keep = epoch_->currentIndex();
  epoch_->blockSignals(true);
  epoch_->clear();
  for (size_t i = 0; i < evs.size(); ++i)
    epoch_->addItem(QString("after epoch %1%2").arg(evs[i].epoch).arg(i + 1 == evs.size() ? " (latest)" : ""));
  if (evs.empty()) follow_latest_ = true;
  epoch_->setCurrentIndex(follow_latest_ || keep < 0 || keep >= epoch_->count() ? epoch_->count() - 1 : keep);
  epoch_->blockSignals(false);
  show_evaluation();
}

bool LearnedView::fits(const Dataset& data, const Evaluation& ev) const {
  const auto& info = data.info();
  const bool recorded = !recorded_dir_.isEmpty();
  const std::string& run_data = recorded ? recorded_dataset_ : run_->started().dataset;
  if (info.num_classes != ev.classes || data.size(Split::kValidation) != ev.total()) return false;
  // Two folders of one's own are both "images": the classes the run recorded tell them apart.
  if (recorded && !recorded_class_names_.empty() && info.class_names != recorded_class_names_) return false;
  if (recorded && !recorded_content_hash_.empty() && info.content_hash != recorded_content_hash_) return false;
  return run_data.empty() || run_data == info.name;
}

const Dataset* LearnedView::matching_dataset(const Evaluation& ev) const {
  if (recorded_dir_.isEmpty() && run_dataset_ && fits(*run_dataset_, ev)) return run_dataset_.get();
  if (dataset_ && fits(*dataset_, ev)) return dataset_.get();
  if (!recorded_dir_.isEmpty() && recorded_data_ && fits(*recorded_data_, ev)) return recorded_data_.get();
  return nullptr;
}

QStringList LearnedView::class_names(const Evaluation& ev) const {
  const Dataset* data = matching_dataset(ev);
  const DatasetInfo* info = data ? &data->info() : nullptr;
  DatasetInfo recorded;  // a recorded run's classes as its run.json names them, whatever is loaded
  if (!recorded_dir_.isEmpty() && static_cast<int64_t>(recorded_class_names_.size()) == ev.classes) {
    recorded.class_names = recorded_class_names_;
    info = &recorded;
  }
  QStringList names;
  for (int64_t k = 0; k < ev.classes; ++k) names << class_label(info, k);
  return names;
}

void LearnedView::load_recorded_data() {
  if (recorded_.empty() || recorded_data_options_.empty()) return;
  if (dataset_ && fits(*dataset_, recorded_.back())) return;  // the loaded one is the run's
  DatasetOptions options;
  try {
    options = config_from_json(nlohmann::json::parse(recorded_data_options_)).dataset;
  } catch (const std::exception&) {
    return;  // a config this version cannot read: the classes keep their recorded names
  }
  ++recorded_loads_;
  auto* watcher = new QFutureWatcher<std::shared_ptr<const Dataset>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, dir = recorded_dir_] {
    watcher->deleteLater();
    --recorded_loads_;
    if (dir != recorded_dir_) return;  // another run was chosen meanwhile
    recorded_data_ = watcher->result();
    if (recorded_data_) show_evaluation();
  });
  watcher->setFuture(QtConcurrent::run([options]() -> std::shared_ptr<const Dataset> {
    try {
      return load_dataset(options);
    } catch (const std::exception&) {  // its files gone or changed: the examples stay without pictures
      return nullptr;
    }
  }));
}

void LearnedView::show_evaluation() {
  const Evaluation* ev = shown();
  if (!ev) {
    matrix_->clear();
    per_class_->setRowCount(0);
    confused_->clear();
    examples_->clear();
    show_regions(false);
    summary_->setText("Nothing validated yet: what the model has learned shows here after each epoch's validation.");
    return;
  }
  matrix_->set_evaluation(*ev, class_names(*ev));
  const int64_t total = ev->total();
  const QString source = recorded_dir_.isEmpty() ? QString() : QString("Recorded run %1. ").arg(QDir(recorded_dir_).dirName());
  summary_->setText(source + QString("After epoch %1 (step %2): %3 of %4 validation examples right (%5). Blue cells are right "
                            "answers, orange ones mistakes.")
                        .arg(ev->epoch)
                        .arg(ev->global_step)
                        .arg(ev->correct())
                        .arg(total)
                        .arg(percent(total > 0 ? static_cast<double>(ev->correct()) / static_cast<double>(total) : 0)));
  fill_per_class(*ev);
  fill_confused(*ev);
  fill_regions(*ev);
  fill_examples();
}

}  // namespace mirror::ui
