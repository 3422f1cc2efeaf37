#pragma once
// One recorded run as a row of the runs browser: the columns, their text, their colours, and
// keys that sort numbers as numbers and start times as times.

#include <QStringList>

#include "mirror/runs/run_reader.h"

class QTableWidget;

namespace mirror::ui {

// The columns, as table column indices: run_column::kName ...
namespace run_column {
enum : int { kName, kStatus, kDataset, kModel, kDevices, kBestVal, kSteps, kDuration, kStarted, kTags, kCount };
}  // namespace run_column

// The column titles, in column order.
QStringList run_row_headers();
// Writes `r` into `row` of `table` (items created when missing; only the name is editable; the
// name item holds the run's folder as Qt::UserRole).
void fill_run_row(QTableWidget* table, int row, const RunRecord& r);

}  // namespace mirror::ui
