// The Strategy tab: the mirrored step drawn from a real run, live and step by step; on Qt's
// offscreen platform.
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include "mirror/data/batch.h"
#include "mirror/data/registry.h"
#include "mirror/strategy/shard_plan.h"
#include "mirror/util/rng.h"
#include "ui/classroom/strategy_view.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "points_run.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
TrainConfig points_config(int epochs, int replicas) {
  TrainConfig c = mirror::testing::points_run(epochs, /*batch=*/30, replicas);
  c.strategy.sync_check_every = 1;
  return c;
}

// Processes events until `done` or `ms` pass; whether `done` came true.
bool wait_for(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms) QTest::qWait(10);
  return done();
}
}  // namespace

class StrategyViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // Step by step: the run holds; each Space takes exactly one step, which the view then walks
  // through phase by phase, ending on the sync check with every replica's checksum.
  void eachSpaceTakesExactlyOneStep() {
    RunLauncher launcher;
    launcher.set_recording(false);
    StrategyView view(launcher.live(), launcher.controller());
    connect(&view, &StrategyView::pause_wanted, &launcher, &RunLauncher::set_paused);
    view.resize(900, 600);
    view.show();
    QSignalSpy wanted(&view, &StrategyView::pause_wanted);
    const TrainConfig config = points_config(50, 3);
    const auto data = load_dataset(config.dataset);
    view.set_dataset(data);
    launcher.start_run(config, data);
    QVERIFY(wait_for([&] { return launcher.live()->last_step().global_step > 0; }, 30000));
    view.set_mode(StrategyView::Mode::kStepByStep);
    QCOMPARE(wanted.count(), 1);
    QCOMPARE(wanted.last().at(0).toBool(), true);
    QVERIFY(wait_for([&] { return launcher.controller()->holding(); }, 10000));
    QTest::qWait(100);  // the steps taken before the hold reach the view
    int64_t at = launcher.live()->last_step().global_step;
    for (int press = 0; press < 3; ++press) {
      QTest::keyClick(&view, Qt::Key_Space);
      QVERIFY2(wait_for([&] { return launcher.live()->last_step().global_step == at + 1; }, 10000),
               qPrintable(QString("press %1: step %2 after %3").arg(press).arg(launcher.live()->last_step().global_step).arg(at)));
      QVERIFY(wait_for([&] { return launcher.controller()->holding(); }, 10000));
      QTest::qWait(150);
      QCOMPARE(launcher.live()->last_step().global_step, at + 1);  // one, not more
      at += 1;
      // The walk-through starts at the split and ends on the sync check.
      QCOMPARE(view.diagram()->picture().global_step, at);
      QVERIFY(wait_for([&] { return view.phase_line()->text().contains("Press Space"); }, 10000));
      QCOMPARE(view.phase(), StepPhase::kSyncCheck);
    }
    const StepPicture& pic = view.diagram()->picture();
    QCOMPARE(pic.replicas.size(), size_t{3});
    int64_t shards = 0;
    for (const auto& t : pic.replicas) shards += t.shard_size;
    QCOMPARE(shards, config.batch_size);
    QCOMPARE(pic.sync_step, at);
    QCOMPARE(pic.checksums.size(), size_t{3});
    QVERIFY(view.phase_line()->text().contains(QString("after step %1 every replica's parameters hash to").arg(at)));
    QVERIFY(view.explain(StepPhase::kSplit).contains("cut into 3 shards (10, 10, 10)"));
    // Each shard's first three examples, as the epoch's shuffled order cuts them, with their points.
    const int64_t n = data->size(Split::kTrain);
    const int64_t per_epoch = (n + config.batch_size - 1) / config.batch_size;
    const int64_t epoch = (at - 1) / per_epoch + 1, begin = ((at - 1) % per_epoch) * config.batch_size;
    const std::vector<int64_t> order = Rng(config.seed, static_cast<uint64_t>(epoch)).permutation(n);
    const ShardPlan plan(std::min(config.batch_size, n - begin), 3);
    QCOMPARE(pic.shard_examples.size(), size_t{3});
    for (int r = 0; r < 3; ++r) {
      const auto& shard = pic.shard_examples[static_cast<size_t>(r)];
      QCOMPARE(shard.size(), size_t{3});
      for (int i = 0; i < 3; ++i) {
        const int64_t index = order[static_cast<size_t>(begin + plan.offset(r) + i)];
        QCOMPARE(shard[static_cast<size_t>(i)].index, index);
        const Batch b = data->gather(Split::kTrain, {index});
        QCOMPARE(shard[static_cast<size_t>(i)].label, b.y[0].item<int64_t>());
        QCOMPARE(shard[static_cast<size_t>(i)].point.size(), size_t{2});
        QCOMPARE(shard[static_cast<size_t>(i)].point[0], b.x[0][0].item<float>());
      }
    }
    QVERIFY2(view.explain(StepPhase::kSplit).contains("Replica 0's shard begins with " + pic.shard_examples[0][0].name + ", "),
             qPrintable(view.explain(StepPhase::kSplit)));
    QVERIFY(view.explain(StepPhase::kAllReduce).contains(QString::fromStdString(launcher.live()->started().communicator)));
    // Back to live: the run goes on by itself.
    view.set_mode(StrategyView::Mode::kLive);
    QCOMPARE(wanted.last().at(0).toBool(), false);
    QVERIFY(wait_for([&] { return launcher.live()->last_step().global_step > at + 5; }, 10000));
    launcher.stop();
    QVERIFY(wait_for([&] { return !launcher.running(); }, 10000));
  }

  // Live, the view replays steps at most ~30 times a second, and only while it is shown.
  void replicasAreGroupedByTheirProcess() {
    // Names as a run on 2 processes x 2 replicas reports them, and as one process does.
    const auto groups = process_groups({"rank 0 cpu:0/logical:0", "rank 0 cpu:0/logical:1", "rank 1 cpu:0/logical:0",
                                        "rank 1 cpu:0/logical:1"});
    QCOMPARE(groups.size(), size_t{2});
    QCOMPARE(groups[1].process, 1);
    QCOMPARE(groups[1].first, 2);
    QCOMPARE(groups[1].count, 2);
    QVERIFY(process_groups({"cpu:0/logical:0", "cpu:0/logical:1"}).empty());
  }

  void liveReplaysOnlyWhileShown() {
    RunLauncher launcher;
    launcher.set_recording(false);
    StrategyView view(launcher.live(), launcher.controller());
    view.resize(900, 600);
    view.show();
    int repaints = 0;
    view.diagram()->installEventFilter(this);
    connect(this, &StrategyViewTest::painted, [&] { ++repaints; });
    const TrainConfig config = points_config(3, 2);
    launcher.start_run(config, load_dataset(config.dataset));
    QVERIFY(wait_for([&] { return !view.diagram()->picture().replicas.empty(); }, 30000));
    QElapsedTimer t;
    t.start();
    repaints = 0;
    QTest::qWait(1000);
    // It animates (8 to 30 frames a second when idle; a machine busy with other tests can starve the
    // event loop, so only a few frames are required) and never beyond its frame budget.
    QVERIFY2(repaints >= 2 && repaints <= 40, qPrintable(QString("%1 repaints in %2 ms").arg(repaints).arg(t.elapsed())));
    view.hide();
    QTest::qWait(100);
    repaints = 0;
    QTest::qWait(500);
    QCOMPARE(repaints, 0);
    launcher.stop();
    QVERIFY(wait_for([&] { return !launcher.running(); }, 10000));
  }

  // The broken-sync lesson's failure: a replica nudged after step 7, the check after step 10
  // fails and stops the run. The view holds on that failing check (its step, the replica that
  // differs, in red), not on the last one that passed (step 5).
  void aFailedSyncCheckShowsTheFailingCheckNotTheLastPassingOne() {
    RunLauncher launcher;
    launcher.set_recording(false);
    StrategyView view(launcher.live(), launcher.controller());
    view.resize(900, 600);
    view.show();
    QSignalSpy finished(launcher.live(), &LiveRun::run_finished);
    TrainConfig config = points_config(3, 2);
    config.strategy.sync_check_every = 5;
    config.strategy.perturb_replica_at_step = 7;
    launcher.start_run(config, load_dataset(config.dataset));
    QVERIFY(wait_for([&] { return finished.count() > 0; }, 30000));
    QVERIFY(launcher.live()->last_result().status == RunStatus::kFailed);
    QCOMPARE(launcher.live()->last_step().global_step, int64_t{9});  // step 10 never reported
    QCOMPARE(launcher.live()->last_sync_check(), int64_t{10});
    QVERIFY(launcher.live()->last_sync_failed());
    const StepPicture& pic = view.diagram()->picture();
    QCOMPARE(pic.sync_step, int64_t{10});
    QVERIFY(pic.sync_failed);
    QCOMPARE(pic.checksums.size(), size_t{2});
    QVERIFY(pic.checksums[1] != pic.checksums[0]);
    QCOMPARE(view.phase(), StepPhase::kSyncCheck);
    const QString line = view.phase_line()->text();
    QVERIFY2(line.contains("Sync check FAILED after step 10: replica 1's parameters hash differently"), qPrintable(line));
    QVERIFY2(!line.contains("bit-identical:"), qPrintable(line));
    // It stays on the failing check: the replay does not move on to the next phase.
    QTest::qWait(1600);
    QCOMPARE(view.phase(), StepPhase::kSyncCheck);
    QCOMPARE(view.diagram()->picture().sync_step, int64_t{10});
    // The diagram draws it: the failing check's head and the differing replica in red.
    QImage shot(view.diagram()->size(), QImage::Format_ARGB32);
    shot.fill(Qt::white);
    view.diagram()->render(&shot);
    int red = 0;
    for (int y = 0; y < shot.height(); ++y)
      for (int x = 0; x < shot.width(); ++x) {
        const QColor c = shot.pixelColor(x, y);
        if (c.red() > 150 && c.green() < 90 && c.blue() < 90) ++red;
      }
    QVERIFY2(red > 50, qPrintable(QString("%1 red pixels").arg(red)));
    // The next run starts clean.
    QVERIFY(wait_for([&] { return !launcher.running(); }, 10000));
    launcher.start_run(points_config(1, 2), load_dataset(config.dataset));
    QVERIFY(wait_for([&] { return launcher.live()->last_step().global_step > 0; }, 30000));
    QVERIFY(!launcher.live()->last_sync_failed());
    launcher.stop();
    QVERIFY(wait_for([&] { return !launcher.running(); }, 10000));
  }

 Q_SIGNALS:
  void painted();

 protected:
  bool eventFilter(QObject* o, QEvent* e) override {
    if (e->type() == QEvent::Paint) Q_EMIT painted();
    return QObject::eventFilter(o, e);
  }
};

QTEST_MAIN(StrategyViewTest)
#include "test_strategy_view.moc"
