// Tested by tests/ui/setup/test_setup_panels.cpp and tests/ui/setup/test_own_data.cpp.
#include "ui/setup/dataset_panel.h"

#include "mirror/data/registry.h"

#include <QComboBox>
#include <QDragEnterEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <nlohmann/json.hpp>

#include <cmath>

#include "mirror/data/data_guess.h"
#include "mirror/data/load_progress.h"
#include "mirror/data/preview.h"
#include "mirror/train/config.h"
#include "mirror/util/error.h"
#include "ui/setup/point_editor.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/plain_text.h"
#include "ui/widgets/point_plot.h"

namespace mirror::ui {

namespace {
constexpr int kProgressMs = 100;      // the progress bar's refresh while loading

// The dataset `name`'s options it reads; none for an unknown name.
UsedDatasetOptions used_options(const QString& name) {
  const DatasetEntry* entry = find_dataset(name.toStdString());
  return entry ? entry->uses : UsedDatasetOptions{};
}

// The loader's stop when the load is no longer wanted (thrown from its progress report).
struct LoadCancelled : std::runtime_error {
  LoadCancelled() : std::runtime_error("loading cancelled") {}
};

// The validation split's field for Reuters' test_split (<0: Keras' default, 0.2).
int split_percent(double test_split) { return test_split < 0 ? 20 : static_cast<int>(std::lround(test_split * 100)); }

// The options as run.json records them: equal documents load equal data.
nlohmann::json recorded(const DatasetOptions& o) {
  TrainConfig c;
  c.dataset = o;
  return to_json(c).at("dataset");
}
}  // namespace

DatasetPanel::DatasetPanel(QWidget* parent) : QWidget(parent) {
  setAcceptDrops(true);
  auto* form = new QFormLayout;
  name_ = new QComboBox;
  for (const auto& d : dataset_entries()) name_->addItem(QString::fromStdString(d.name), QString::fromStdString(d.default_dir));
  name_->setToolTip("Which data to train on. Drop a folder or a file here to open it: a folder of class folders of "
                    "images or .txt files, a .csv table, a Keras .npz file.");
  form->addRow("Dataset", name_);
  dir_ = new QLineEdit;
  auto* browse = new QPushButton("Browse…");
  auto* dir_row = new QHBoxLayout;
  dir_row->addWidget(dir_);
  dir_row->addWidget(browse);
  dir_label_ = new QLabel("Folder");
  dir_label_->setObjectName("data-dir-label");
  form->addRow(dir_label_, dir_row);
  train_size_ = new QSpinBox;
  train_size_->setRange(0, 1'000'000);
  train_size_->setSpecialValueText("default");
  train_size_->setToolTip("Synthetic sets: how many training examples to generate.");
  form->addRow("Training examples", train_size_);
  seq_len_ = new QSpinBox;
  seq_len_->setRange(0, 5000);
  seq_len_->setSpecialValueText("default");
  form->addRow("Sequence length", seq_len_);
  num_words_ = new QSpinBox;
  num_words_->setRange(0, 1'000'000);
  num_words_->setSpecialValueText("all");
  form->addRow("Vocabulary", num_words_);
  validation_ = new QSpinBox;
  validation_->setRange(1, 90);
  validation_->setValue(20);
  validation_->setSuffix(" %");
  validation_->setObjectName("validation-split");
  form->addRow("Validation split", validation_);
  seed_ = new QSpinBox;
  seed_->setRange(0, 1'000'000);
  seed_->setValue(42);
  seed_->setToolTip("Synthetic sets: the seed that generates them. Your own data: the seed of the split's shuffle "
                    "(Keras' seed: the same seed holds out the same files as Keras).");
  form->addRow("Data seed", seed_);
  own_ = std::make_unique<OwnDataFields>(form);
  auto* load_button = new QPushButton("Load");
  draw_ = new QPushButton("Draw points…");
  draw_->setObjectName("draw-points");
  draw_->setCheckable(true);
  draw_->setToolTip("Draw your own 2-D points, class by class, and train on them");
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(load_button);
  buttons->addWidget(draw_);
  buttons->addStretch();
  form->addRow("", buttons);
  progress_ = new QProgressBar;
  progress_->setObjectName("load-progress");
  progress_->setRange(0, 0);
  progress_->setVisible(false);
  progress_->setFormat("%v of %m");
  progress_->setTextVisible(false);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(kProgressMs);
  editor_ = new PointEditor;
  editor_->setVisible(false);
  editor_->setMinimumHeight(300);
  summary_ = new QLabel;
  summary_->setTextFormat(Qt::RichText);  // the dataset's name in bold, escaped
  summary_->setWordWrap(true);
  error_ = plain_label({}, /*wrap=*/true);  // messages quote paths and file contents
  error_->setStyleSheet("color: #c0392b;");
  error_->setVisible(false);
  classes_ = new QTableWidget(0, 3);
  classes_->setHorizontalHeaderLabels({"class", "train", "validation"});
  classes_->verticalHeader()->setVisible(false);
  classes_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  classes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  classes_->setMaximumHeight(kClassTableHeight);
  samples_ = new QWidget;
  samples_layout_ = new QGridLayout(samples_);
  samples_layout_->setContentsMargins(0, 0, 0, 0);
  points_ = new PointPlot;
  points_->setObjectName("dataset-points");
  points_->setToolTip("The training points, one colour per class");
  points_->setMinimumHeight(220);
  points_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(progress_);
  layout->addWidget(editor_, 2);
  layout->addWidget(error_);
  layout->addWidget(summary_);
  layout->addWidget(classes_);
  layout->addWidget(samples_);
  layout->addWidget(points_, 1);
  layout->addStretch();

  connect(browse, &QPushButton::clicked, this, &DatasetPanel::browse);
  connect(progress_timer_, &QTimer::timeout, this, &DatasetPanel::show_progress);
  connect(draw_, &QPushButton::toggled, this, [this](bool on) {
    editor_->setVisible(on);
    if (on) editor_->canvas()->setFocus();
    if (dataset_) show_dataset();  // the scatter plot gives way to the editor
  });
  connect(editor_, &PointEditor::use_requested, this, [this](const QString& csv) {
    set_dataset("table", csv);
    load();
  });
  connect(load_button, &QPushButton::clicked, this, &DatasetPanel::load);
  connect(name_, &QComboBox::currentIndexChanged, this, [this] {
    update_option_visibility();
    load();
  });
  connect(&watcher_, &QFutureWatcher<LoadResult>::finished, this, &DatasetPanel::on_loaded);
  update_option_visibility();
}

DatasetPanel::~DatasetPanel() {
  if (load_state_) load_state_->cancel = true;
}

void DatasetPanel::update_option_visibility() {
  const UsedDatasetOptions uses = used_options(name_->currentText());
  seq_len_->setEnabled(uses.sequence_length);
  num_words_->setEnabled(uses.num_words);
  validation_->setEnabled(uses.test_split || uses.validation_split);
  train_size_->setEnabled(uses.train_size);
  seed_->setEnabled(uses.seed);
  dir_->setEnabled(uses.data_dir);
  own_->set_used(uses);
  const DatasetFieldHelp help = dataset_field_help(uses);
  seq_len_->setToolTip(help.sequence_length);
  num_words_->setToolTip(help.num_words);
  validation_->setToolTip(help.validation);
  dir_label_->setText(help.folder_label);
  dir_->setPlaceholderText(help.folder_placeholder);
  dir_->setToolTip(help.folder);
}

void DatasetPanel::browse() {
  const UsedDatasetOptions uses = used_options(name_->currentText());
  QString chosen;
  if (uses.label_column)  // a table is one file
    chosen = QFileDialog::getOpenFileName(this, "Table (CSV)", dir_->text(), "CSV files (*.csv);;All files (*)");
  else
    chosen = QFileDialog::getExistingDirectory(this, uses.validation_split ? "Folder of class folders" : "Dataset folder", dir_->text());
  if (chosen.isEmpty()) return;
  dir_->setText(chosen);
  load();
}

void DatasetPanel::set_config(const TrainConfig& config) {
  const DatasetOptions& o = config.dataset;
  given_ = o;
  set_dataset(QString::fromStdString(o.name), QString::fromStdString(o.data_dir));
  train_size_->setValue(static_cast<int>(o.train_size));
  seq_len_->setValue(static_cast<int>(o.sequence_length));
  num_words_->setValue(static_cast<int>(o.num_words));
  validation_->setValue(split_percent(used_options(name_->currentText()).validation_split ? o.validation_split : o.test_split));
  seed_->setValue(static_cast<int>(o.seed));
  own_->show(o);
}

void DatasetPanel::config(TrainConfig& into) const { write_shown(into.dataset); }

DatasetOptions DatasetPanel::options() const {
  DatasetOptions o = given_;
  write_shown(o);
  return o;
}

void DatasetPanel::write_shown(DatasetOptions& o) const {
  o.name = name_->currentText().toStdString();
  o.data_dir = dir_->text().trimmed().toStdString();
  o.train_size = train_size_->value();
  o.sequence_length = seq_len_->value();
  o.num_words = num_words_->value();
  o.seed = static_cast<uint64_t>(seed_->value());
  // The split as given while the field still shows it (so Keras' default stays "default"); the
  // one field is the validation share of whichever rule the dataset follows.
  double& split = used_options(name_->currentText()).validation_split ? o.validation_split : o.test_split;
  const double given = &split == &o.validation_split ? given_.validation_split : given_.test_split;
  split = validation_->value() == split_percent(given) ? given : validation_->value() / 100.0;
  own_->write(given_, o);
}

bool DatasetPanel::needs_load() const { return !dataset_ || loading() || recorded(loaded_) != recorded(options()); }

void DatasetPanel::set_dataset(const QString& name, const QString& dir) {
  const QSignalBlocker block(name_);
  const int i = name_->findText(name);
  if (i >= 0) name_->setCurrentIndex(i);
  dir_->setText(dir);
  update_option_visibility();
}

void DatasetPanel::load() {
  if (loading_) {
    reload_pending_ = true;  // the choice changed while loading: load again when this one ends
    if (load_state_) load_state_->cancel = true;  // a loader that reports progress stops at its next report
    return;
  }
  reload_pending_ = false;
  loading_ = true;
  const DatasetOptions o = options();
  requested_ = o;
  progress_->setRange(0, 0);  // busy until the loader says how much it reads
  progress_->setTextVisible(false);
  progress_->setVisible(true);
  progress_timer_->start();
  error_->setVisible(false);
  summary_->setText(QString("Loading %1…").arg(QString::fromStdString(o.name).toHtmlEscaped()));
  Q_EMIT loading_changed(true);
  load_state_ = std::make_shared<LoadState>();
  watcher_.setFuture(QtConcurrent::run([o, state = load_state_] {
    LoadResult r;
    QElapsedTimer t;
    t.start();
    try {
      const ScopedLoadProgress progress([&state](const LoadProgress& p) {
        if (state->cancel) throw LoadCancelled();
        const std::lock_guard<std::mutex> lock(state->mutex);
        state->done = p.done;
        state->total = p.total;
        state->what = p.what;
      });
      r.dataset = load_dataset(o);
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(describe_exception(e));
    }
    r.seconds = t.elapsed() / 1000.0;
    return r;
  }));
}

void DatasetPanel::show_progress() {
  if (!load_state_) return;
  int64_t done = 0, total = 0;
  QString what;
  {
    const std::lock_guard<std::mutex> lock(load_state_->mutex);
    done = load_state_->done;
    total = load_state_->total;
    what = QString::fromStdString(load_state_->what);
  }
  if (total <= 0) return;  // nothing reported: stays busy
  // The bar counts in thousands when the files are more than an int holds.
  const int64_t scale = total > 1'000'000'000 ? 1000 : 1;
  progress_->setRange(0, static_cast<int>(total / scale));
  progress_->setValue(static_cast<int>(std::min(done, total) / scale));
  progress_->setTextVisible(true);
  progress_->setToolTip(literal(what));  // names a folder: shown as its characters
}

void DatasetPanel::on_loaded() {
  const LoadResult r = watcher_.result();
  progress_timer_->stop();
  if (reload_pending_) {  // stale: the user chose something else meanwhile
    // Still loading until load() runs again, so that loading() never reads false between the two
    // loads (mirrorbench --train polls it and would find no dataset to train on).
    watcher_.waitForFinished();
    loading_ = false;
    QMetaObject::invokeMethod(this, &DatasetPanel::load, Qt::QueuedConnection);
    return;
  }
  show_progress();  // the last count, read (the bar keeps it, hidden)
  progress_->setVisible(false);
  loading_ = false;
  dataset_ = r.dataset;
  loaded_ = requested_;
  if (!dataset_) {
    const QString message = in_window_terms(r.error, dir_label_->text());
    error_->setText(message);
    error_->setVisible(true);
    summary_->clear();
    classes_->setRowCount(0);
    Q_EMIT error(message);
  } else {
    show_dataset();
    summary_->setText(summary_->text() + QString(" Loaded in %1 s.").arg(r.seconds, 0, 'f', 2));
  }
  Q_EMIT loading_changed(false);
  Q_EMIT dataset_changed(dataset_);
}

void DatasetPanel::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void DatasetPanel::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.front().isLocalFile()) return;
  open_dropped(urls.front().toLocalFile());
  event->acceptProposedAction();
}

void DatasetPanel::open_dropped(const QString& path) {
  const DataGuess guess = guess_data_at(path.toStdString(), name_->currentText().toStdString());
  const QString name = QString::fromStdString(guess.name);
  set_dataset(name.isEmpty() || name_->findText(name) < 0 ? name_->currentText() : name, QString::fromStdString(guess.path));
  load();
}

}  // namespace mirror::ui
