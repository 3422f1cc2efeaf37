// The LiveRun model that live views subscribe to, the run lifecycle behind the window, and the
// Devices tab's list of all-reduce backends; on Qt's offscreen platform.
#include <QElapsedTimer>
#include <QFile>
#include <QListWidget>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

#include "mirror/data/registry.h"
#include "mirror/runs/run_reader.h"
#include "mirror/strategy/fake_communicator.h"
#include "ui/live/live_page.h"
#include "ui/live/metric_chart.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/setup/devices_panel.h"
#include "points_run.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
TrainConfig blobs_config(int epochs) { return mirror::testing::points_run(epochs, /*batch=*/32, /*logical=*/2); }
}  // namespace

class LiveRunTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // A view that only subscribes to LiveRun sees the whole run: the start, frames carrying every
  // step, and the end, with frames paced (never one per step).
  void aSubscribedViewSeesTheRunInPacedFrames() {
    RunLauncher launcher;
    launcher.set_recording(false);
    LiveRun* live = launcher.live();
    int frames = 0;
    qint64 steps_at_last_frame = 0;
    QObject view;  // stands for any new view: it connects to the model and nothing else
    connect(live, &LiveRun::frame, &view, [&] {
      ++frames;
      steps_at_last_frame = live->metrics().steps();
    });
    QSignalSpy started(live, &LiveRun::run_started);
    QSignalSpy finished(live, &LiveRun::run_finished);
    QElapsedTimer t;
    t.start();
    launcher.start_run(blobs_config(20), load_dataset(blobs_config(20).dataset));
    QVERIFY(launcher.running());
    QVERIFY(finished.wait(60000));
    const double seconds = static_cast<double>(t.elapsed()) / 1000.0;
    QCOMPARE(started.count(), 1);
    QCOMPARE(live->last_result().status, RunStatus::kFinished);
    QVERIFY(!launcher.running());
    const qint64 steps = live->metrics().steps();
    QCOMPARE(steps, live->last_result().steps);
    QCOMPARE(steps_at_last_frame, steps);  // the last frame came after the last step
    QVERIFY2(frames >= 2, qPrintable(QString("%1 frames").arg(frames)));
    // At most ~30 frames a second (plus the forced last one), far fewer than the steps.
    QVERIFY2(frames <= 30 * seconds + 3, qPrintable(QString("%1 frames in %2 s").arg(frames).arg(seconds)));
    QVERIFY2(frames < steps, qPrintable(QString("%1 frames for %2 steps").arg(frames).arg(steps)));
  }

  // The window's lifecycle records through the same RecordedRun as the CLI, and a failure in the
  // all-reduce (injected with the fake communicator) ends the run with its message.
  void launchedRunsAreRecordedAndFailuresArriveAsFinished() {
    const ScopedRunsFolder runs;
    RunLauncher launcher;
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = blobs_config(1);
    c.max_steps = 5;
    launcher.start_run(c, nullptr);  // the dataset is loaded on the run's thread
    QVERIFY(!launcher.run_dir().isEmpty());
    QVERIFY(finished.wait(60000));
    const RunRecord r = read_run(launcher.run_dir().toStdString());
    QCOMPARE(QString::fromStdString(r.status), QString("finished"));
    QCOMPARE(r.steps.size(), size_t{5});

    const auto fake = register_fake_communicator(FaultPlan{/*rank=*/0, /*fail_at_call=*/3, 0, 0});
    c.strategy.communicator = "fake";
    QTRY_VERIFY_WITH_TIMEOUT(!launcher.controller()->running(), 10000);  // the last thread has ended
    launcher.start_run(c, nullptr);
    QVERIFY(finished.wait(60000));
    const RunFinished fin = launcher.live()->last_result();
    QCOMPARE(fin.status, RunStatus::kFailed);
    QVERIFY2(fin.message.find("injected failure in collective 3 on rank 0") != std::string::npos, fin.message.c_str());
    QCOMPARE(launcher.live()->metrics().steps(), qint64{2});
  }

  // Resuming a recorded run shows the whole run: the recorded steps up to its checkpoint, then
  // the resumed ones in their places (issue: resumed runs drew empty or cut-off charts).
  void aResumedRunsLiveChartsHoldTheWholeRun() {
    const ScopedRunsFolder runs;
    RunLauncher launcher;
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = blobs_config(1);  // 2,000 examples at batch 32: 63 steps
    c.max_steps = 20;
    c.checkpoints.every_steps = 8;
    launcher.start_run(c, nullptr);
    QVERIFY(finished.wait(60000));
    const std::string dir = launcher.run_dir().toStdString();
    QCOMPARE(read_run(dir).steps.size(), size_t{20});
    // As after a kill: steps 17-20 were recorded, but the newest checkpoint is step 16's.
    QVERIFY(QFile::remove(QString::fromStdString(dir) + "/checkpoints/ckpt-20.pt"));
    QTRY_VERIFY_WITH_TIMEOUT(!launcher.controller()->running(), 10000);
    launcher.resume_run(QString::fromStdString(dir), 1);
    QVERIFY(finished.wait(60000));
    QCOMPARE(launcher.live()->last_result().status, RunStatus::kFinished);
    const auto& loss = launcher.live()->metrics().raw(Metric::kLoss);
    QCOMPARE(loss.size(), 63);
    for (int i = 0; i < loss.size(); ++i) QCOMPARE(loss[i].x(), double(i + 1));  // steps 1..63, once each
    QCOMPARE(launcher.live()->metrics().train_epochs(Metric::kLoss).size(), 1);
  }

  // A run stopped mid-epoch recorded that epoch's part (a marker at the stop step); resumed from
  // the stop, the epoch it completes takes the place of that part: one marker, at the epoch's end.
  void aResumedEpochReplacesItsStoppedPart() {
    const ScopedRunsFolder runs;
    RunLauncher launcher;
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = blobs_config(1);  // 63 steps an epoch
    c.max_steps = 20;                 // ends at step 20 with a checkpoint there, as a stop does
    launcher.start_run(c, nullptr);
    QVERIFY(finished.wait(60000));
    const std::string dir = launcher.run_dir().toStdString();
    QCOMPARE(read_run(dir).epochs.size(), size_t{1});  // the stopped part of epoch 1
    QTRY_VERIFY_WITH_TIMEOUT(!launcher.controller()->running(), 10000);
    launcher.resume_run(QString::fromStdString(dir), 1);
    QVERIFY(finished.wait(60000));
    QCOMPARE(launcher.live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(launcher.live()->metrics().raw(Metric::kLoss).size(), 63);
    for (Metric m : {Metric::kLoss, Metric::kAccuracy}) {
      const QVector<QPointF>& marks = launcher.live()->metrics().train_epochs(m);
      QCOMPARE(marks.size(), 1);
      QCOMPARE(marks[0].x(), 63.0);
    }
    // The recorded run read back for a comparison draws it the same way.
    const RunMetrics again = RunMetrics::from_record(read_run(dir), 0.9, XAxis::kStep);
    QCOMPARE(again.train_epochs(Metric::kLoss).size(), 1);
    QCOMPARE(again.train_epochs(Metric::kLoss)[0].x(), 63.0);
  }

  // The live page's numbers are the typical ones: the replica view shows a whole-batch step, the
  // sync line follows the checks, and a top-k chart of k >= classes (always 1) is not shown.
  void theLivePageShowsSteadyNumbers() {
    RunLauncher launcher;
    launcher.set_recording(false);
    LivePage page(launcher.live());
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = blobs_config(2);  // 2,000 examples at batch 32: 62 whole steps and one of 16, twice
    c.strategy.sync_check_every = 50;
    launcher.start_run(c, load_dataset(c.dataset));
    QVERIFY(finished.wait(60000));
    const LiveRun& live = *launcher.live();
    QCOMPARE(live.last_step().samples, int64_t{16});
    QCOMPARE(live.typical_step().samples, int64_t{32});
    QCOMPARE(live.typical_step().replicas.size(), size_t{2});
    QCOMPARE(live.typical_step().replicas[0].shard_size, int64_t{16});
    QCOMPARE(live.last_sync_check(), int64_t{100});
    QVERIFY(page.chart(Metric::kTopK)->isHidden());  // blobs has 3 classes, top-5
    QVERIFY(!page.chart(Metric::kLoss)->isHidden());
    QVERIFY(live.recent_samples_per_sec() > 0);
  }

  // With a demo pace the rate is of training (the waits are not training) and the time left
  // follows the pace: each step left takes at least 1/40 s (issue 35). The steps left end at the
  // run's step limit when it comes before its epochs' end (a lesson's runs have one; the time
  // left counted three epochs of 63 steps).
  void aPacedRunsEtaFollowsThePace() {
    RunLauncher launcher;
    launcher.set_recording(false);
    launcher.controller()->set_pace(40);
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig c = blobs_config(1);  // 63 steps an epoch
    c.max_steps = 30;
    launcher.start_run(c, load_dataset(c.dataset));
    const LiveRun& live = *launcher.live();
    QTRY_VERIFY_WITH_TIMEOUT(live.progress().steps() >= 5 || !finished.isEmpty(), 30000);
    const int64_t step = live.last_step().global_step;
    QCOMPARE(live.total_steps(3), int64_t{30});
    if (step < 30) {
      const double eta = live.eta_seconds(3);
      QVERIFY2(eta >= (30 - step) / 40.0 - 1e-9, qPrintable(QString("ETA %1 s for %2 steps at 40 steps/s").arg(eta).arg(30 - step)));
    }
    QVERIFY(!finished.isEmpty() || finished.wait(60000));
    QVERIFY(live.recent_samples_per_sec() > 0);
    QCOMPARE(live.progress().steps(), int64_t{30});
    QVERIFY2(live.progress().pace_seconds() > 0, "the waits for the pace are counted apart");
    QCOMPARE(live.eta_seconds(3), 0.0);  // at its limit: nothing left, whatever the epochs say
  }

  void devicesTabListsEveryBackendWithItsAvailability() {
    DevicesPanel panel;
    panel.logical_box()->setValue(2);
    QListWidget* list = panel.backend_list();
    QCOMPARE(list->count(), static_cast<int>(CommunicatorRegistry::instance().backends().size()));
    QStringList rows;
    for (int i = 0; i < list->count(); ++i) rows << list->item(i)->text();
    const QString all = rows.join("\n");
    QVERIFY2(all.contains("✓ shared-memory"), qPrintable(all));
    QVERIFY2(all.contains("✓ reduce-to-one"), qPrintable(all));
    QVERIFY2(all.contains("✗ none: serves one replica only"), qPrintable(all));
    QVERIFY(list->item(1)->toolTip().contains("gather to replica 0"));
  }
};

QTEST_MAIN(LiveRunTest)
#include "test_live_run.moc"
