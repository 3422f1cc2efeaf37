// The ui tests' recorded runs (ui_test_helpers.h), trained here once for every ui test: the one
// place they compile LibTorch.
#include <QDir>

#include "mirror/train/trainer.h"
#include "ui_test_helpers.h"
#include "points_run.h"

namespace mirror::ui {

// Trains `c` to its end on this thread, recorded in `dir` as mirrortrain records it; returns `dir`.
QString record_config(const QString& dir, const TrainConfig& c) {
  Trainer trainer(c, load_dataset(c.dataset));
  RunWriter writer(dir.toStdString(), to_json(c));
  TrainControl control;
  trainer.run(writer, control);
  return dir;
}

// Trains and records a real run: the spirals MLP on a small blobs set, 2 epochs.
QString record_run(const QString& root, const QString& name, double lr, int logical) {
  TrainConfig c = mirror::testing::points_run(/*epochs=*/2, /*batch=*/32, logical, /*train_size=*/512, /*val_size=*/128);
  c.optimizer.learning_rate = lr;
  return record_config(root + "/" + name, c);
}

// The three runs the runs page's tests browse and compare: lr 0.01 on 1 device, 0.05 on 2, 0.1 on 4.
QStringList record_three_runs(const QString& root) {
  QDir().mkpath(root);
  return QStringList() << record_run(root, "20261130-100000-a", 0.01, 1) << record_run(root, "20261130-100100-b", 0.05, 2)
                       << record_run(root, "20261130-100200-c", 0.1, 4);
}

}  // namespace mirror::ui
