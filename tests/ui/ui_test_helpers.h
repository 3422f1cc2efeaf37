#pragma once
// Shared by the ui tests: small settings and a small window ready to train, and short runs recorded for the runs page.
// QTRY_* return from the function on failure: callers check QTest::currentTestFailed() after.
// LibTorch-free: the runs are trained in ui_test_support.cpp, compiled once for every ui test.

#include <QDir>
#include <QString>
#include <QStringList>
#include <QtTest>

#include <memory>

#include "mirror/data/registry.h"
#include "mirror/model/presets.h"
#include "mirror/runs/run_writer.h"
#include "mirror/train/config.h"
#include "setup/training_settings.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/setup/training_panel.h"
#include "ui/live/live_page.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"

namespace mirror::ui {

// The settings tabs alone on the small blobs set with the spirals MLP: fast enough to train in a
// test. QTRY_* return from the function on failure: callers check QTest::currentTestFailed().
inline void open_small_setup(SetupTabs& t, int epochs) {
  t.apply_preset("spirals-mlp");
  t.open_dataset("blobs", {});
  QTRY_VERIFY_WITH_TIMEOUT(!t.dataset_panel()->loading() && t.dataset() && t.dataset()->info().name == "blobs", 30000);
  set_training(t.training_panel(), "adam", 0.01, 64, epochs);
}

// A window with those settings, shown; hence the out parameter.
inline void open_small_window(std::unique_ptr<MainWindow>& w, int epochs) {
  w = std::make_unique<MainWindow>(/*restore_settings=*/false);
  w->resize(1200, 800);
  w->show();
  open_small_setup(*w->setup(), epochs);
}

// Starts `w`'s run from its Train action and waits up to `ms` for its end: whether it ended.
// Callers write QVERIFY(train_to_end(w)), then read w.launcher()->live()->last_result().
inline bool train_to_end(MainWindow& w, int ms = 60000) {
  QSignalSpy done(&w, &MainWindow::run_finished);
  w.train_action()->trigger();
  return done.count() > 0 || done.wait(ms);
}

// Starts `w`'s run and waits up to 30 s until it has taken more than `steps` steps: whether it did.
inline bool train_past(MainWindow& w, int64_t steps) {
  w.train_action()->trigger();
  return QTest::qWaitFor([&] { return w.launcher()->live()->metrics().steps() > steps; }, 30000);
}

// Trains `c` to its end on this thread, recorded in `dir` as mirrortrain records it; returns `dir`.
QString record_config(const QString& dir, const TrainConfig& c);
// Trains and records a real run: the spirals MLP on a small blobs set, 2 epochs.
QString record_run(const QString& root, const QString& name, double lr, int logical);
// The three runs the runs page's tests browse and compare: lr 0.01 on 1 device, 0.05 on 2, 0.1 on 4.
QStringList record_three_runs(const QString& root);

}  // namespace mirror::ui
