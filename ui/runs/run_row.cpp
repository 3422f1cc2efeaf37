// Tested by tests/ui/runs/test_runs_view.cpp.
#include "ui/runs/run_row.h"

#include <QColor>
#include <QStringList>
#include <QTableWidget>

#include "mirror/runs/compare.h"
#include "ui/widgets/plain_text.h"

namespace mirror::ui {

using namespace run_column;

namespace {
QString duration_text(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  if (s >= 3600) return QString("%1h %2m").arg(s / 3600).arg(s / 60 % 60);
  if (s >= 60) return QString("%1m %2s").arg(s / 60).arg(s % 60);
  return QString("%1s").arg(seconds, 0, 'f', seconds < 10 ? 1 : 0);
}

QString devices_text(const RunRecord& r) {
  QStringList names;
  for (const auto& p : physical_devices(r)) names << QString::fromStdString(p);
  if (names.isEmpty()) names << QString::fromStdString(config_value(r, "devices.devices"));
  return QString("%1 × %2").arg(replica_count(r)).arg(names.join(", "));
}

QColor status_colour(const std::string& status) {
  if (status == "running") return QColor(31, 119, 180);
  if (status == "finished") return QColor(44, 140, 44);
  if (status == "failed" || status == "unreadable") return QColor(192, 57, 43);
  if (status == "interrupted" || status == "stalled") return QColor(200, 120, 0);
  return QColor(120, 120, 120);
}

// A table item that sorts by a number when it has one.
class SortItem : public QTableWidgetItem {
 public:
  using QTableWidgetItem::QTableWidgetItem;
  bool operator<(const QTableWidgetItem& other) const override {
    const QVariant a = data(Qt::UserRole + 1), b = other.data(Qt::UserRole + 1);
    if (!a.isValid() || !b.isValid()) return QTableWidgetItem::operator<(other);
    if (a.typeId() == QMetaType::QString) return a.toString() < b.toString();
    return a.toDouble() < b.toDouble();
  }
};
}  // namespace

QStringList run_row_headers() {
  return {"Name", "Status", "Dataset", "Model", "Devices", "Best val acc", "Steps", "Duration", "Started", "Tags"};
}

void fill_run_row(QTableWidget* table, int row, const RunRecord& r) {
  auto set = [&](int column, const QString& text, QVariant sort_key = {}) {
    QTableWidgetItem* item = table->item(row, column);
    if (!item) {
      item = new SortItem;
      table->setItem(row, column, item);
    }
    item->setText(text);
    item->setData(Qt::UserRole + 1, sort_key);
    if (column != kName) item->setFlags(item->flags() & ~Qt::ItemIsEditable);
    return item;
  };
  auto* name = set(kName, QString::fromStdString(r.display_name()));
  name->setData(Qt::UserRole, QString::fromStdString(r.dir));
  QString tip = QString::fromStdString(r.dir);
  for (const auto& w : r.warnings) tip += "\n⚠ " + QString::fromStdString(w);
  name->setToolTip(literal(tip));
  auto* status = set(kStatus, QString::fromStdString(r.status));
  status->setForeground(status_colour(r.status));
  status->setToolTip(literal(QString::fromStdString(r.message())));
  set(kDataset, QString::fromStdString(run_dataset_label(r)));
  set(kModel, QString::fromStdString(run_model_label(r)));
  set(kDevices, r.status == "unreadable" ? QString() : devices_text(r), replica_count(r));
  set(kBestVal, r.best_val_accuracy < 0 ? "-" : QString::number(r.best_val_accuracy, 'f', 4), r.best_val_accuracy);
  const qint64 steps = r.steps.empty() ? 0 : r.steps.back().global_step;
  set(kSteps, QString::number(steps), static_cast<double>(steps));
  set(kDuration, duration_text(r.duration_seconds), r.duration_seconds);
  const QString started = QString::fromStdString(r.started_at());
  // Sorted as "20261130-134501 <dir>", the form run directories are named in, so that runs
  // without a start time sort by their name and runs started in the same second keep their order.
  const QString stamp = started.isEmpty() ? QString() : QString(started).remove('-').remove(':').replace('T', '-').remove('Z');
  set(kStarted, started.isEmpty() ? QString::fromStdString(r.name) : QString(started).replace('T', ' ').remove('Z'),
      (stamp.isEmpty() ? QString() : stamp + " ") + QString::fromStdString(r.name));
  QStringList tags;
  for (const auto& t : r.meta.tags) tags << QString::fromStdString(t);
  set(kTags, tags.join(", "));
}

}  // namespace mirror::ui
