// Tested by tests/ui/runs/test_runs_view.cpp.
#include "ui/runs/runs_browser.h"

#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTextDocument>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <set>
#include <utility>

#include "mirror/util/words.h"
#include "ui/runs/run_row.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

RunsBrowser::RunsBrowser(const QString& root, QWidget* parent)
    : QWidget(parent), root_(root.isEmpty() ? QString::fromStdString(default_runs_root()) : root) {
  filter_ = new QLineEdit;
  filter_->setPlaceholderText("Filter by name, tag, dataset, model or status");
  filter_->setClearButtonEnabled(true);
  connect(filter_, &QLineEdit::textChanged, this, &RunsBrowser::apply_filter);
  // Short labels: in projector type the bar must not widen the page (the page tabs moved sideways
  // when the Runs page came up); each button's tooltip says it whole.
  auto* open = new QPushButton("Open run…");
  open->setToolTip("Open a run folder from anywhere, for example one a headless or cluster job is writing; it is "
                   "followed live (also Runs → Open run folder…)");
  connect(open, &QPushButton::clicked, this, &RunsBrowser::choose_folder);
  auto* tags = new QPushButton("Tags…");
  connect(tags, &QPushButton::clicked, this, &RunsBrowser::edit_tags);
  auto* del = new QPushButton("Move to trash");
  del->setToolTip("Move the selected runs to the desktop trash (restore them from there)");
  connect(del, &QPushButton::clicked, this, &RunsBrowser::delete_selected);
  resume_ = new QPushButton("Resume");
  resume_->setToolTip("Continue the selected stopped or interrupted run from its newest checkpoint, with the same "
                      "numbers an uninterrupted run gets");
  resume_->setEnabled(false);
  connect(resume_, &QPushButton::clicked, this, [this] {
    const auto runs = selected_runs();
    if (runs.size() != 1) return;
    const QString dir = QString::fromStdString(runs[0].dir);
    if (runs[0].status != "finished") return Q_EMIT resume_requested(dir, 0);
    const int done = static_cast<int>(runs[0].epochs.empty() ? 0 : runs[0].epochs.back().epoch);
    bool ok = false;
    const int until = QInputDialog::getInt(this, "Continue training", QString("Train %1 on until epoch:")
                                               .arg(QString::fromStdString(runs[0].display_name())),
                                           done + 1, done + 1, 100000, 1, &ok);
    if (ok) Q_EMIT resume_requested(dir, until);
  });
  learned_ = new QPushButton("What it learned");
  learned_->setToolTip("Show the selected run's confusion matrix, examples and decision regions on the Learned tab");
  learned_->setEnabled(false);
  connect(learned_, &QPushButton::clicked, this, [this] {
    const auto runs = selected_runs();
    if (runs.size() == 1) Q_EMIT learned_requested(QString::fromStdString(runs[0].dir));
  });
  auto* bar = new QHBoxLayout;
  bar->addWidget(filter_, 1);
  bar->addWidget(learned_);
  bar->addWidget(resume_);
  bar->addWidget(open);
  bar->addWidget(tags);
  bar->addWidget(del);

  table_ = new QTableWidget(0, run_column::kCount);
  table_->setObjectName("runs_table");
  table_->setHorizontalHeaderLabels(run_row_headers());
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->setToolTip("Select runs to compare them (Ctrl+click, Shift+click); double-click a name to rename it");
  connect(table_, &QTableWidget::itemSelectionChanged, this, &RunsBrowser::on_selection_changed);
  connect(table_, &QTableWidget::itemChanged, this, &RunsBrowser::on_item_changed);
  connect(table_, &QTableWidget::currentCellChanged, this, [this] {
    if (!filling_) load_notes();
  });

  notes_ = new QPlainTextEdit;
  notes_->setPlaceholderText("Notes on the current run (saved as you type)");
  notes_->setEnabled(false);
  notes_->setToolTip("Notes on the current run; the box opens to four lines while you type in it");
  notes_->installEventFilter(this);  // one line until it has the focus
  notes_save_.setSingleShot(true);
  notes_save_.setInterval(600);
  connect(&notes_save_, &QTimer::timeout, this, &RunsBrowser::save_notes);
  connect(notes_, &QPlainTextEdit::textChanged, this, [this] {
    if (!filling_) notes_save_.start();
  });
  // Beside the notes, one line (elided, whole in its tooltip): folder names and warnings quote
  // run.json, drawn as plain text. A line of its own cost a projector's comparison its charts.
  status_ = new ElidedLabel({}, Qt::ElideMiddle);
  status_->setObjectName("runs_status");

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);  // every pixel is a projector's: the list's rows come first
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  auto* below = new QHBoxLayout;
  below->addWidget(notes_, 2);
  below->addWidget(status_, 3);
  layout->addLayout(below);

  table_->setSortingEnabled(true);  // newest first; a click on a header sorts by that column
  table_->sortByColumn(run_column::kStarted, Qt::DescendingOrder);
  fit_heights();
  poll_.setInterval(1000);
  connect(&poll_, &QTimer::timeout, this, &RunsBrowser::refresh);
  connect(&watcher_, &QFutureWatcher<Loaded>::finished, this, &RunsBrowser::on_loaded);
  QStringList dirs;
  const QDir dir(root_);
  for (const QString& name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
    if (QFile::exists(dir.filePath(name) + "/run.json")) dirs << dir.filePath(name);
  status_->setText(QString("Reading %1 in %2…").arg(QString::fromStdString(counted(dirs.size(), "run"))).arg(root_));
  watcher_.setFuture(QtConcurrent::run([dirs] {
    Loaded out;
    for (const QString& d : dirs) {
      try {
        out.emplace_back(d, std::make_shared<RunFollower>(d.toStdString()));
      } catch (const std::exception&) {
        out.emplace_back(d, nullptr);  // listed as unreadable by refresh(), with the reason
      }
    }
    return out;
  }));
}

void RunsBrowser::on_loaded() {
  loading_ = false;
  for (auto& [dir, follower] : watcher_.result())
    if (follower && !entries_.count(dir)) entries_[dir].follower = std::move(follower);
  refresh();
  poll_.start();
  if (!pending_selection_.isEmpty()) select_runs(std::exchange(pending_selection_, {}));
  Q_EMIT loaded();
}

RunsBrowser::~RunsBrowser() {
  watcher_.waitForFinished();
  if (notes_save_.isActive()) save_notes();  // typed just before closing
}

int RunsBrowser::row_of(const QString& dir) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, run_column::kName) && table_->item(r, run_column::kName)->data(Qt::UserRole).toString() == dir) return r;
  return -1;
}

QStringList RunsBrowser::run_dirs() const {
  QStringList out;
  for (int r = 0; r < table_->rowCount(); ++r) out << table_->item(r, run_column::kName)->data(Qt::UserRole).toString();
  return out;
}

void RunsBrowser::fill_row(int row, const RunRecord& r) {
  const bool was = filling_;
  filling_ = true;
  fill_run_row(table_, row, r);
  filling_ = was;
}

void RunsBrowser::refresh() {
  if (loading()) return;  // on_loaded() refreshes
  filling_ = true;
  const bool sorting = table_->isSortingEnabled();
  table_->setSortingEnabled(false);
  const QStringList selected = [this] {
    QStringList out;
    for (const auto& r : selected_runs()) out << QString::fromStdString(r.dir);
    return out;
  }();
  bool selected_changed = false, added = false;
  std::set<QString> on_disk;
  const QDir root(root_);
  for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    const QString dir = root.filePath(name);
    if (QFile::exists(dir + "/run.json")) on_disk.insert(dir);
  }
  for (auto it = entries_.begin(); it != entries_.end();) {  // gone: trashed or moved by someone else
    if (!it->second.external && !on_disk.count(it->first)) {
      if (const int row = row_of(it->first); row >= 0) table_->removeRow(row);
      selected_changed = selected_changed || selected.contains(it->first);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  for (const QString& dir : on_disk)
    if (!entries_.count(dir)) entries_[dir];
  for (auto& [dir, entry] : entries_) {
    bool changed = false;
    if (!entry.follower) {
      try {
        entry.follower = std::make_shared<RunFollower>(dir.toStdString());
        changed = true;
      } catch (const std::exception& e) {
        changed = entry.broken.status != "unreadable";
        entry.broken.dir = dir.toStdString();
        entry.broken.name = QFileInfo(dir).fileName().toStdString();
        entry.broken.status = "unreadable";
        entry.broken.run = nlohmann::json::object();
        entry.broken.warnings = {e.what()};
      }
    } else {
      changed = entry.follower->poll();
    }
    int row = row_of(dir);
    if (row < 0) {
      row = table_->rowCount();
      table_->insertRow(row);
      changed = true;
      added = true;
    }
    if (changed) {
      fill_row(row, entry.record());
      selected_changed = selected_changed || selected.contains(dir);
    }
  }
  table_->setSortingEnabled(sorting);
  if (added) fit_columns();
  filling_ = false;
  // Runs started or trashed since the folder was read count too (other messages stay until then).
  if (entries_.size() != counted_) {
    counted_ = entries_.size();
    status_->setText(QString("%1 in %2").arg(QString::fromStdString(counted(counted_, "run"))).arg(root_));
  }
  apply_filter();
  if (selected_changed) on_selection_changed();
}

bool RunsBrowser::open_run(const QString& path, QString* error) {
  const QString dir = QDir(path).absolutePath();
  try {
    auto follower = std::make_shared<RunFollower>(dir.toStdString());
    Entry& e = entries_[dir];
    e.follower = std::move(follower);
    e.external = QFileInfo(dir).absolutePath() != QDir(root_).absolutePath();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    status_->setText(QString("Cannot open %1: %2").arg(dir, e.what()));
    return false;
  }
  refresh();
  select_runs({dir});
  return true;
}

void RunsBrowser::select_runs(const QStringList& dirs) {
  if (loading()) {
    pending_selection_ = dirs;
    return;
  }
  // Runs chosen for you (a study's, a sweep's, a lesson's) are shown: a filter that would hide one
  // of them goes (it stayed on after a study, hiding the runs compared below it).
  auto row_for = [this](const QString& d) {
    const int row = row_of(QDir(d).absolutePath());
    return row >= 0 ? row : row_of(d);
  };
  for (const QString& d : dirs) {
    const int row = row_for(d);
    if (row >= 0 && table_->isRowHidden(row)) {
      filter_->clear();
      break;
    }
  }
  filling_ = true;
  table_->clearSelection();
  bool first = true;
  for (const QString& d : dirs) {
    const int fallback = row_for(d);
    if (fallback < 0) continue;
    const QModelIndex index = table_->model()->index(fallback, 0);
    table_->selectionModel()->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    if (first) {
      table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
      table_->scrollTo(index);
    }
    first = false;
  }
  filling_ = false;
  on_selection_changed();
}

std::vector<RunRecord> RunsBrowser::selected_runs() const {
  std::vector<RunRecord> out;
  for (int row = 0; row < table_->rowCount(); ++row) {
    if (!table_->item(row, run_column::kName) || !table_->item(row, run_column::kName)->isSelected()) continue;
    const auto it = entries_.find(table_->item(row, run_column::kName)->data(Qt::UserRole).toString());
    if (it != entries_.end() && it->second.follower) out.push_back(it->second.record());
  }
  return out;
}

QString RunsBrowser::focused_run() const {
  const auto selected = selected_runs();
  const QString current = current_dir();
  for (const auto& r : selected)
    if (QString::fromStdString(r.dir) == current) return current;
  return selected.empty() ? QString() : QString::fromStdString(selected.front().dir);
}

QString RunsBrowser::current_dir() const {
  const int row = table_->currentRow();
  return row >= 0 && table_->item(row, run_column::kName) ? table_->item(row, run_column::kName)->data(Qt::UserRole).toString() : QString();
}

void RunsBrowser::on_selection_changed() {
  if (filling_) return;
  load_notes();
  const QString dir = current_dir();
  const auto it = entries_.find(dir);
  if (it != entries_.end()) {
    QStringList warnings;
    for (const auto& w : it->second.record().warnings) warnings << QString::fromStdString(w);
    status_->setText(warnings.isEmpty() ? dir : dir + " — " + warnings.join("; "));
  }
  const auto runs = selected_runs();
  const bool resumable = runs.size() == 1 && (runs[0].status == "stopped" || runs[0].status == "interrupted" ||
                                               runs[0].status == "failed" || runs[0].status == "stalled");
  const bool continuable = runs.size() == 1 && runs[0].status == "finished";
  resume_->setEnabled(resumable || continuable);
  learned_->setEnabled(runs.size() == 1);
  resume_->setText(continuable ? "Continue…" : "Resume");
  resume_->setToolTip(continuable ? "Train the selected finished run on for more epochs, from its last checkpoint"
                                  : "Continue the selected stopped or interrupted run from its newest checkpoint, "
                                    "with the same numbers an uninterrupted run gets");
  Q_EMIT selection_changed(runs);
}

void RunsBrowser::apply_filter() {
  const QString f = filter_->text().trimmed();
  for (int row = 0; row < table_->rowCount(); ++row) {
    bool match = f.isEmpty();
    for (int c : {run_column::kName, run_column::kStatus, run_column::kDataset, run_column::kModel, run_column::kTags})
      match = match || (table_->item(row, c) && table_->item(row, c)->text().contains(f, Qt::CaseInsensitive));
    table_->setRowHidden(row, !match);
  }
}

void RunsBrowser::choose_folder() {
  const QString dir = QFileDialog::getExistingDirectory(this, "Open a run folder (holding run.json)", root_);
  if (dir.isEmpty()) return;
  QString error;
  if (!open_run(dir, &error)) QMessageBox::warning(this, "Not a run", literal(error));
}

}  // namespace mirror::ui
