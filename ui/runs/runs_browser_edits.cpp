// The person's edits to recorded runs in the runs browser: a name, tags and notes (each written
// to the run's meta.json), and runs moved to the desktop trash.
// Tested by tests/ui/runs/test_runs_view.cpp.
#include "ui/runs/runs_browser.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTableWidget>

#include "mirror/util/error.h"
#include "mirror/util/words.h"
#include "ui/runs/run_row.h"

namespace mirror::ui {

bool RunsBrowser::write(const QString& dir, const RunMeta& meta) {
  try {
    write_meta(dir.toStdString(), meta);
  } catch (const RunError& e) {
    status_->setText(QString("Cannot save: %1").arg(e.what()));
    return false;
  }
  refresh();
  return true;
}

bool RunsBrowser::rename(const QString& dir, const QString& name) {
  const auto it = entries_.find(dir);
  if (it == entries_.end() || !it->second.follower) return false;
  RunMeta meta = it->second.record().meta;
  meta.name = name.trimmed().toStdString();
  if (meta.name == it->second.record().name) meta.name.clear();
  return write(dir, meta);
}

bool RunsBrowser::set_tags(const QString& dir, const QStringList& tags) {
  const auto it = entries_.find(dir);
  if (it == entries_.end() || !it->second.follower) return false;
  RunMeta meta = it->second.record().meta;
  meta.tags.clear();
  for (const QString& t : tags)
    if (!t.trimmed().isEmpty()) meta.tags.push_back(t.trimmed().toStdString());
  return write(dir, meta);
}

bool RunsBrowser::set_notes(const QString& dir, const QString& notes) {
  const auto it = entries_.find(dir);
  if (it == entries_.end() || !it->second.follower) return false;
  RunMeta meta = it->second.record().meta;
  meta.notes = notes.toStdString();
  return write(dir, meta);
}

void RunsBrowser::on_item_changed(QTableWidgetItem* item) {
  if (filling_ || item->column() != run_column::kName) return;
  rename(item->data(Qt::UserRole).toString(), item->text());
}

void RunsBrowser::edit_tags() {
  const QString dir = current_dir();
  const auto it = entries_.find(dir);
  if (it == entries_.end() || !it->second.follower) return;
  QStringList current;
  for (const auto& t : it->second.record().meta.tags) current << QString::fromStdString(t);
  bool ok = false;
  const QString text = QInputDialog::getText(this, "Tags", "Tags, separated by commas:", QLineEdit::Normal,
                                             current.join(", "), &ok);
  if (ok) set_tags(dir, text.split(','));
}

void RunsBrowser::load_notes() {
  if (notes_save_.isActive()) {
    notes_save_.stop();
    save_notes();
  }
  notes_dir_ = current_dir();
  const auto it = entries_.find(notes_dir_);
  const bool editable = it != entries_.end() && it->second.follower;
  const bool was = filling_;
  filling_ = true;
  notes_->setEnabled(editable);
  notes_->setPlainText(editable ? QString::fromStdString(it->second.record().meta.notes) : QString());
  filling_ = was;
}

void RunsBrowser::save_notes() {
  if (!notes_dir_.isEmpty()) set_notes(notes_dir_, notes_->toPlainText());
}

int RunsBrowser::move_to_trash(const QStringList& dirs) {
  // Qt makes the trash under the data folder but not the folder itself (a fresh account, a container).
  QDir().mkpath(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation));
  int moved = 0;
  QStringList kept;
  for (const QString& dir : dirs) {
    const auto it = entries_.find(dir);
    if (it != entries_.end() && it->second.record().status == "running") {
      kept << QFileInfo(dir).fileName() + " (still being written; stop it first)";
      continue;
    }
    QFile trash(dir);
    if (!trash.moveToTrash()) {
      kept << QFileInfo(dir).fileName() + " (" + trash.errorString() + ")";
      continue;
    }
    ++moved;
    if (const int row = row_of(dir); row >= 0) table_->removeRow(row);
    entries_.erase(dir);
  }
  status_->setText(kept.isEmpty() ? QString("%1 moved to the trash.").arg(QString::fromStdString(counted(moved, "run")))
                                  : QString("%1 moved to the trash; kept: %2").arg(QString::fromStdString(counted(moved, "run"))).arg(kept.join(", ")));
  on_selection_changed();
  return moved;
}

void RunsBrowser::delete_selected() {
  QStringList dirs;
  for (const auto& r : selected_runs()) dirs << QString::fromStdString(r.dir);
  if (dirs.isEmpty()) return;
  if (confirm_ && QMessageBox::question(this, "Move to trash",
                                        QString("Move %1 to the trash? You can restore %2 from there.")
                                            .arg(QString::fromStdString(counted(dirs.size(), "run")))
                                            .arg(dirs.size() == 1 ? "it" : "them")) != QMessageBox::Yes)
    return;
  move_to_trash(dirs);
}

}  // namespace mirror::ui
