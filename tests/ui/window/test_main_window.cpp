// The desktop window as a user drives a run in it, on Qt's offscreen platform: it opens ready to
// train; Stop, Pause and the pace reach the run; a failed run and a damaged checkpoint are shown
// in the window; closing or quitting mid-run stops or asks, and the next window offers to resume.
// The tabs' own tests are in tests/ui/setup, the charts' in tests/ui/live.
#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "../setup/training_settings.h"
#include "../ui_test_helpers.h"
#include "mirror/data/dataset.h"
#include "mirror/model/layer_spec.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/runs/run_reader.h"
#include "ui/live/metric_chart.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/model_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/live/live_page.h"
#include "ui/window/main_window.h"
#include "points_run.h"

using namespace mirror;
using namespace mirror::ui;

class MainWindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void windowOpensReadyToTrain() {
    QElapsedTimer t;
    t.start();
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY_WITH_TIMEOUT(w.setup()->dataset_panel()->dataset() != nullptr, 20000);
    qInfo("window usable with its default dataset after %lld ms", static_cast<long long>(t.elapsed()));
    QVERIFY2(w.train_action()->isEnabled(), qPrintable(w.train_blocked_label()->text()));
    QVERIFY(!w.stop_action()->isEnabled());
    QVERIFY(w.setup()->model_panel()->ok());
    // Before any run, a top-5 chart only for more than 5 classes (spirals has 3: it was always 1).
    const int64_t classes = w.setup()->dataset_panel()->dataset()->info().num_classes;
    QCOMPARE(!w.live_page()->chart(Metric::kTopK)->isHidden(), classes > 5);
    w.setup()->dataset_panel()->set_dataset("spirals");
    w.setup()->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading() && w.setup()->dataset_panel()->dataset()->info().name == "spirals", 20000);
    QVERIFY(w.live_page()->chart(Metric::kTopK)->isHidden());
  }

  void stopHaltsWithinAStep() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    QVERIFY(train_past(*w, 5));
    w->stop_action()->trigger();
    QVERIFY(done.wait(10000));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kStopped);
    QVERIFY(w->launcher()->live()->last_result().steps < 500 * 32);
  }

  void pauseHoldsTheRunUntilResumed() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    QVERIFY(train_past(*w, 3));
    QCOMPARE(w->pause_action()->text(), QString("Pause"));
    w->pause_action()->setChecked(true);
    QCOMPARE(w->pause_action()->text(), QString("Resume"));  // what pressing it again does
    // The step in flight lands, then the trainer holds between steps.
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->controller()->holding(), 10000);
    // Steps the trainer sent before it began to hold are queued by now: deliver them first.
    QCoreApplication::processEvents();
    const qint64 held = w->launcher()->live()->metrics().steps();
    QTest::qWait(500);  // an observation window, not a wait for something: a held run takes no step
    QCOMPARE(w->launcher()->live()->metrics().steps(), held);
    QVERIFY(w->launcher()->controller()->holding());
    w->pause_action()->setChecked(false);
    QCOMPARE(w->pause_action()->text(), QString("Pause"));
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->live()->metrics().steps() > held, 10000);
    w->stop_action()->trigger();
    QVERIFY(done.wait(10000));
  }

  void thePaceReachesTheRunAndTheCommandLineCanSetAnyValue() {
    MainWindow w(false);
    auto* pace = w.findChild<QComboBox*>("pace");
    QVERIFY(pace);
    QCOMPARE(pace->currentText(), QString("full speed"));
    pace->setCurrentIndex(pace->findData(10.0));
    Q_EMIT pace->activated(pace->currentIndex());
    QCOMPARE(w.launcher()->controller()->pace(), 10.0);
    w.set_pace(7);  // as mirrorbench --pace 7
    QCOMPARE(pace->currentText(), QString("7 steps/s"));
    QCOMPARE(w.pace(), 7.0);
    w.set_pace(0);
    QCOMPARE(pace->currentText(), QString("full speed"));
  }

  void trainerErrorShowsInTheWindow() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 3);
    if (QTest::currentTestFailed()) return;
    // A linear model with a huge step diverges: the run fails with a NaN loss.
    ModelSpec linear = model_from_json(nlohmann::json::parse(
        R"({"layers": [{"type": "Dense", "units": 64}, {"type": "Dense", "units": 64}, {"type": "Dense", "units": "classes"}]})"));
    w->setup()->model_panel()->set_spec(linear);
    set_training(w->setup()->training_panel(), "sgd", 100, 64, 3);
    QVERIFY(train_to_end(*w));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFailed);
    QVERIFY(w->error_banner()->isVisible());
    QVERIFY2(w->error_banner()->text().contains("loss became"), qPrintable(w->error_banner()->text()));
    QVERIFY(w->train_action()->isEnabled());  // the window stays usable
  }

  // Resuming a run whose newest checkpoint was cut short: the window says which one it passed
  // over, and the run continues from the one before.
  void resumingPastADamagedCheckpointSaysSo() {
    QTemporaryDir dir;
    RunPlan plan;
    plan.config = mirror::testing::points_run(/*epochs=*/3, /*batch=*/50, /*logical=*/2, /*train_size=*/400);
    plan.config.max_steps = 12;
    plan.config.checkpoints.every_steps = 5;
    plan.dir = dir.filePath("run").toStdString();
    {
      RecordedRun first(plan);
      EventSink quiet;
      TrainControl control;
      QCOMPARE(first.run(quiet, control).steps, 12);
    }
    const std::string newest = plan.dir + "/checkpoints/ckpt-12.pt";
    std::filesystem::resize_file(newest, 200);
    auto w = std::make_unique<MainWindow>(/*restore_settings=*/false);
    w->show();
    QSignalSpy done(w.get(), &MainWindow::run_finished);
    w->resume_run(QString::fromStdString(plan.dir), 3);
    // The strip names what trains: the resumed run's settings, not the panels' preset.
    const QString strip = w->setup_strip()->findChild<QLabel*>("setup_summary")->toolTip();
    QVERIFY2(strip.contains("blobs") && strip.contains("batch 50"), qPrintable(strip));
    QVERIFY(done.wait(60000));
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(w->launcher()->live()->last_result().steps, 3 * 8);
    QVERIFY(w->error_banner()->isVisible());
    const QString text = w->error_banner()->text();
    QVERIFY2(text.contains("passed over a damaged checkpoint") && text.contains("ckpt-12.pt") &&
                 text.contains("resuming from " + QString::fromStdString(plan.dir) + "/checkpoints/ckpt-10.pt"),
             qPrintable(text));
  }

  void closingDuringTrainingStopsTheRun() {
    std::unique_ptr<MainWindow> w;
    open_small_window(w, 500);
    if (QTest::currentTestFailed()) return;
    w->set_quit_choice([] { return MainWindow::QuitChoice::kStopAndQuit; });
    QVERIFY(train_past(*w, 3));
    QElapsedTimer t;
    t.start();
    w->close();
    w.reset();  // joins the trainer thread
    QVERIFY2(t.elapsed() < 5000, "closing must not hang");
  }

  // Quitting mid-run asks (keep training / stop and quit / quit when it ends); the next window
  // offers to resume a run that was stopped or cut short; a run can be named before it starts.
  void quittingMidRunAsksAndTheNextWindowOffersToResume() {
    QTemporaryDir config;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path());
    QSettings().clear();
    auto open = [](std::unique_ptr<MainWindow>& w) {
      w = std::make_unique<MainWindow>(/*restore_settings=*/true);
      w->setup()->apply_preset("spirals-mlp");
      w->show();
      w->setup()->dataset_panel()->set_dataset("blobs");
      w->setup()->dataset_panel()->load();
      QTRY_VERIFY_WITH_TIMEOUT(!w->setup()->dataset_panel()->loading() && w->setup()->dataset_panel()->dataset() &&
                                   w->setup()->dataset_panel()->dataset()->info().name == "blobs", 30000);
    };
    std::unique_ptr<MainWindow> w;
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(!w->resume_offer()->isVisible());
    set_training(w->setup()->training_panel(), "adam", 0.01, 64, 500);
    w->setup()->training_panel()->run_name_edit()->setText("named before it started");
    int asked = 0;
    bool held_while_asked = false;
    MainWindow::QuitChoice answer = MainWindow::QuitChoice::kKeepTraining;
    w->set_quit_choice([&] {
      ++asked;
      held_while_asked = w->launcher()->controller()->paused();  // it trained on behind the question
      return answer;
    });
    w->train_action()->trigger();
    QVERIFY(w->setup()->training_panel()->run_name_edit()->text().isEmpty());  // the next run does not inherit it
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->live()->metrics().steps() > 3, 30000);
    const QString dir = w->launcher()->run_dir();
    // Keep training: nothing closes, nothing stops.
    QVERIFY(!w->close());
    QCOMPARE(asked, 1);
    QVERIFY(held_while_asked);
    QVERIFY(w->isVisible() && w->launcher()->running() && !w->launcher()->controller()->paused());  // and goes on after
    // Stop and quit: the run is recorded stopped, under its name.
    answer = MainWindow::QuitChoice::kStopAndQuit;
    QVERIFY(w->close());
    w.reset();
    RunRecord r = read_run(dir.toStdString());
    QCOMPARE(r.status, std::string("stopped"));
    QCOMPARE(r.meta.name, std::string("named before it started"));
    // The next window offers it; Resume continues it on the Live page.
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(w->resume_offer()->isVisible());
    const QString offer = w->resume_offer()->findChild<QLabel*>()->text();
    QVERIFY2(offer.contains("named before it started") && offer.contains("was stopped after step") &&
                 offer.contains("of 500)"),
             qPrintable(offer));
    w->resume_offer()->findChild<QPushButton*>("resume_last")->click();
    QVERIFY(!w->resume_offer()->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->running() && w->launcher()->live()->metrics().steps() > 3, 30000);
    QCOMPARE(w->launcher()->run_dir(), dir);
    // Quit when it finishes: the window stays until the run ends by itself; then nothing is offered.
    w->stop_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w->launcher()->running(), 30000);
    set_training(w->setup()->training_panel(), "adam", 0.01, 64, 2);
    w->set_pace(20);  // a few seconds: time to ask twice
    w->set_quit_choice([] { return MainWindow::QuitChoice::kQuitWhenDone; });
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->running(), 30000);
    QVERIFY(!w->close());
    // Closing again before it ends asks again (it used to stop the run without a word).
    int again = 0;
    w->set_quit_choice([&] {
      ++again;
      return MainWindow::QuitChoice::kKeepTraining;
    });
    QVERIFY(!w->close());
    QCOMPARE(again, 1);
    QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 60000);
    QCOMPARE(w->launcher()->live()->last_result().status, RunStatus::kFinished);
    w.reset();
    open(w);
    if (QTest::currentTestFailed()) return;
    QVERIFY(!w->resume_offer()->isVisible());
    // A run that ends while the question is open: "Quit when it finishes" closes at once (it used
    // to wait for an end that had already come).
    set_training(w->setup()->training_panel(), "adam", 0.01, 64, 500);
    w->train_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(w->launcher()->running() && w->launcher()->live()->metrics().steps() > 2, 30000);
    MainWindow* window = w.get();
    w->set_quit_choice([window] {
      window->stop_action()->trigger();
      for (int k = 0; k < 300 && window->launcher()->running(); ++k) QTest::qWait(20);
      return MainWindow::QuitChoice::kQuitWhenDone;
    });
    QVERIFY(w->close());
    w.reset();
    QSettings().clear();
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
