#pragma once
// Every recorded run in a table (name, status, dataset, model, devices, best validation accuracy,
// duration, tags), followed live: runs another process is writing update as they grow, new runs
// appear, killed ones show as interrupted. Rename in place, tag, write notes, move to the trash,
// open a run folder from anywhere. The selection is what the compare view shows.

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>

#include <map>
#include <memory>
#include <vector>

#include "mirror/runs/run_reader.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;
class QTableWidgetItem;

namespace mirror::ui {

class RunsBrowser : public QWidget {
  Q_OBJECT
 public:
  // Lists the runs under `root` (the default runs folder when empty). The first reading of
  // every run happens off the GUI thread (hundreds of long runs take seconds); loading() is
  // true until it is done.
  explicit RunsBrowser(const QString& root = {}, QWidget* parent = nullptr);
  ~RunsBrowser() override;
  bool loading() const { return loading_; }

  const QString& root() const { return root_; }
  // Adds a run directory from anywhere (a cluster job's output folder) and selects it. False,
  // with the reason in `error`, when it holds no readable run.
  bool open_run(const QString& dir, QString* error = nullptr);
  // Rescans the root and reads what every run appended since the last look. The browser does
  // this every second on its own.
  void refresh();
  // Selects exactly these runs (by directory); unknown ones are ignored.
  void select_runs(const QStringList& dirs);
  // The selected runs as last read, in table order.
  std::vector<RunRecord> selected_runs() const;
  // The selected run the person points at: the current row when it is selected (the one clicked
  // last, when several are), else the first selected; empty when none is selected.
  QString focused_run() const;
  QStringList run_dirs() const;

  // The person's edits, also reachable from the table and buttons. Each writes meta.json and
  // returns false with a message in the status line when it cannot.
  bool rename(const QString& dir, const QString& name);
  bool set_tags(const QString& dir, const QStringList& tags);
  bool set_notes(const QString& dir, const QString& notes);
  // Moves the runs to the desktop trash (never deletes outright). A run still being written is
  // kept. Returns how many were moved.
  int move_to_trash(const QStringList& dirs);
  // Whether Delete asks first (tests turn it off).
  void set_confirm(bool on) { confirm_ = on; }

  QTableWidget* table() const { return table_; }
  QPushButton* resume_button() const { return resume_; }
  QPushButton* learned_button() const { return learned_; }
  QLineEdit* filter() const { return filter_; }
  QPlainTextEdit* notes() const { return notes_; }
  QLabel* status_line() const { return status_; }
  // The rows the list is given below its header when the page has room (a projector's 720
  // pixels included), and the fewest it can be squeezed to.
  static constexpr int kListRows = 4;
  static constexpr int kFewestListRows = 3;
  // The browser's height with kListRows rows in the list (its scroll bar included).
  int preferred_height() const;

 Q_SIGNALS:
  // The selection changed, or a selected run grew or changed status.
  void selection_changed(const std::vector<mirror::RunRecord>& runs);
  // The first reading of the runs folder is done.
  void loaded();
  // The person asked to continue this stopped, failed or interrupted run (`epochs` 0), or to
  // train a finished one on until epoch `epochs`.
  void resume_requested(const QString& dir, int epochs);
  // The person asked to see what the selected run's model learned.
  void learned_requested(const QString& dir);

 protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Columns as wide as their contents in the current font (the name column capped).
  void fit_columns();
  // The list's minimum height (kFewestListRows rows) and the notes box's (one line, four with the focus).
  void fit_heights();
  struct Entry {
    std::shared_ptr<RunFollower> follower;
    RunRecord broken;  // for a run whose run.json cannot be read
    bool external = false;
    const RunRecord& record() const { return follower ? follower->record() : broken; }
  };
  using Loaded = std::vector<std::pair<QString, std::shared_ptr<RunFollower>>>;
  void on_loaded();
  void fill_row(int row, const RunRecord& r);
  int row_of(const QString& dir) const;
  QString current_dir() const;
  void apply_filter();
  void on_selection_changed();
  void on_item_changed(QTableWidgetItem* item);
  void edit_tags();
  void delete_selected();
  void choose_folder();
  void save_notes();
  void load_notes();
  bool write(const QString& dir, const RunMeta& meta);

  QString root_;
  std::map<QString, Entry> entries_;
  size_t counted_ = static_cast<size_t>(-1);  // runs the status line last counted
  QTableWidget* table_;
  QLineEdit* filter_;
  QPlainTextEdit* notes_;
  QLabel* status_;
  QPushButton* resume_;
  QPushButton* learned_;
  QTimer poll_;
  QFutureWatcher<Loaded> watcher_;
  QStringList pending_selection_;  // asked for while loading
  QTimer notes_save_;
  QString notes_dir_;  // the run whose notes are in the editor
  bool filling_ = false;
  bool confirm_ = true;
  bool loading_ = true;
};

}  // namespace mirror::ui
