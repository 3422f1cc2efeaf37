// How the runs list fits its page: columns to their contents (long names cut), the list at least
// a few rows tall and the notes box one line until written in, following projector mode's font.
// Tested by tests/ui/runs/test_runs_view.cpp and tests/ui/window/test_room_layout.cpp.
#include <QEvent>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTableWidget>
#include <QTextDocument>

#include <algorithm>
#include <cmath>

#include "ui/runs/run_row.h"
#include "ui/runs/runs_browser.h"

namespace mirror::ui {

void RunsBrowser::fit_columns() {
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->resizeColumnsToContents();
  // Long names are cut (their whole text is in the cell's tooltip).
  const int name_cap = 24 * table_->fontMetrics().averageCharWidth();
  table_->setColumnWidth(run_column::kName, std::min(table_->columnWidth(run_column::kName), name_cap));
}

void RunsBrowser::fit_heights() {
  // The list never shrinks below kFewestListRows rows under its header, and the notes box is one
  // line (four while being written in): on a 720-pixel projector the list stays a list and the
  // comparison below it gets the rest. The Runs page gives the list kListRows rows when it can
  // (preferred_height); the minimum leaves out the scroll bar so that the window as a whole
  // still fits a 720-pixel screen while training.
  const int row = table_->verticalHeader()->defaultSectionSize();
  const int header = table_->horizontalHeader()->sizeHint().height();
  table_->setMinimumHeight(header + kFewestListRows * row + 2 * table_->frameWidth());
  const int lines = notes_->hasFocus() ? 4 : 1;
  const int margin = static_cast<int>(std::ceil(2 * notes_->document()->documentMargin()));
  notes_->setFixedHeight(lines * notes_->fontMetrics().lineSpacing() + margin + 2 * notes_->frameWidth());
}

int RunsBrowser::preferred_height() const {
  const int row = table_->verticalHeader()->defaultSectionSize();
  const int header = table_->horizontalHeader()->sizeHint().height();
  const int scroll = table_->horizontalScrollBar()->sizeHint().height();
  const int list = header + kListRows * row + scroll + 2 * table_->frameWidth();
  // What is around the list as laid out now (the notes box opens to four lines while typed in),
  // or before the first layout, as the minimum has it.
  const int around = table_->height() > 0 && testAttribute(Qt::WA_WState_Visible)
                         ? height() - table_->height()
                         : minimumSizeHint().height() - table_->minimumHeight();
  return around + list;
}

bool RunsBrowser::eventFilter(QObject* watched, QEvent* event) {
  if (watched == notes_ && (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut)) {
    fit_heights();
    if (event->type() == QEvent::FocusOut) notes_->ensureCursorVisible();
  }
  return QWidget::eventFilter(watched, event);
}

void RunsBrowser::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Projector mode's larger font: the columns follow, so "finished" is not cut to "finis…", and
  // the list still shows four rows.
  if (event->type() == QEvent::FontChange && table_) {
    fit_columns();
    fit_heights();
  }
}

}  // namespace mirror::ui
