// The TrainingController's thread lifecycle: runs started, stopped and started again in quick
// succession, as a sweep or a quit does; on Qt's offscreen platform.
#include <QtTest>

#include <vector>

#include "mirror/data/registry.h"
#include "mirror/runs/recorded_run.h"
#include "mirror/train/config.h"
#include "ui/run/training_controller.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
constexpr int kRounds = 40;
constexpr int64_t kStepsUntilStopped = 1000000;  // a run that ends only by a stop
}  // namespace

class TrainingControllerTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every start gets its own thread until its own end, and is heard alone: the end of a thread
  // stopped and waited for, which reaches the GUI thread only later, once cleared the thread
  // started after it (the controller said "not running" mid-run, started a second run beside it,
  // and could be destroyed without waiting for its thread), and its queued steps and end were
  // heard as the new run's (a Live page ended the new run at the old one's "stopped").
  void aRunStartedAgainKeepsItsThreadUntilItsOwnEnd() {
    const TrainConfig base = config_from_preset("spirals-mlp");
    const std::shared_ptr<const Dataset> dataset = load_dataset(base.dataset);
    const auto run_of = [&](int64_t max_steps) {
      TrainConfig c = base;
      c.max_steps = max_steps;
      return [c, dataset] {
        RunPlan plan;  // not recorded
        plan.config = c;
        return std::make_unique<RecordedRun>(std::move(plan), dataset);
      };
    };
    struct End {
      RunFinished result;
      bool running;  // what the controller said when this end reached the GUI thread
    };
    std::vector<End> ends;
    int64_t steps_heard = 0;  // since the last start
    TrainingController controller;
    connect(&controller, &TrainingController::finished, this,
            [&](const RunFinished& f) { ends.push_back({f, controller.running()}); });
    connect(&controller, &TrainingController::steps, this,
            [&](const std::vector<StepMetrics>& batch) { steps_heard += static_cast<int64_t>(batch.size()); });
    for (int round = 0; round < kRounds; ++round) {
      const size_t expected_ends = ends.size() + 1;
      if (round % 2 == 1) {  // a run stopped at once, before the one that counts
        QVERIFY(controller.start(run_of(kStepsUntilStopped)));
        if (round % 4 == 3) QTRY_VERIFY_WITH_TIMEOUT(steps_heard > 0, 60000);  // stopped mid-run
        controller.stop_and_wait();
        QVERIFY(!controller.running());
      }
      const int64_t steps = 2 + round % 4;
      steps_heard = 0;
      QVERIFY2(controller.start(run_of(steps)), qPrintable(QString("round %1").arg(round)));
      QVERIFY(controller.running());
      QTRY_VERIFY_WITH_TIMEOUT(ends.size() >= expected_ends, 60000);
      QTest::qWait(20);  // anything else still queued arrives
      QCOMPARE(ends.size(), expected_ends);  // the stopped run's end is not heard after the new start
      QCOMPARE(steps_heard, steps);          // nor are its steps
      const End& end = ends.back();
      QCOMPARE(end.result.status, RunStatus::kFinished);
      QCOMPARE(end.result.steps, steps);  // its own result, not the stopped run's
      QVERIFY2(end.running, qPrintable(QString("round %1: the run's thread was forgotten before its end").arg(round)));
    }
    QTRY_VERIFY_WITH_TIMEOUT(!controller.running(), 10000);  // the last thread's own end clears it
  }
};

QTEST_MAIN(TrainingControllerTest)
#include "test_training_controller.moc"
