// The Strategy tab and the Live page's replica view draw a step on its one clock (issue 35): fed a
// timeline with a known straggler, the sentence names it from the same numbers the bars show, a
// late replica's wait ends where the straggler arrives, and a pace wait is drawn as its own span,
// never as all-reduce. On Qt's offscreen platform; no run is trained.
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include "mirror/strategy/step_timeline.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/replica_view.h"
#include "ui/run/live_run.h"
#include "ui/run/training_controller.h"
#include "ui/widgets/timeline_bars.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
// Four replicas on one clock. Replica 2 has the larger shard and computes longest: it reaches the
// all-reduce last, at 3.62 ms, 3.21 ms after replica 0 (at 0.41 ms); replica 3 started late. The
// process waited 80 ms for the demo pace before the step.
StepTimeline straggler_timeline() {
  StepTimeline t;
  t.global_step = 42;
  const double marks[4][6] = {{0.05, 0.10, 0.25, 0.41, 3.70, 3.80},
                              {0.06, 0.11, 0.50, 0.90, 3.70, 3.82},
                              {0.07, 0.12, 1.80, 3.62, 3.70, 3.85},
                              {1.00, 1.05, 1.20, 1.40, 3.70, 3.79}};
  for (int r = 0; r < 4; ++r) {
    ReplicaMarks m;
    m.replica = r;
    m.process = 0;
    m.shard_size = r == 2 ? 9 : 8;
    m.started = marks[r][0];
    m.copied = marks[r][1];
    m.forward_done = marks[r][2];
    m.gradients_ready = marks[r][3];
    m.reduced = marks[r][4];
    m.updated = marks[r][5];
    t.replicas.push_back(m);
  }
  ProcessSpans p;
  p.step_end = 3.9;
  t.processes.push_back(p);
  t.idle.push_back({IdleKind::kPace, 0, -80.0, -0.02});
  return t;
}

// The step as the run reports it: the durations (as the old view read them: replica 0 spent the
// least time in the all-reduce here, the pace counted in the others') and the timeline.
StepMetrics straggler_step() {
  StepMetrics s;
  s.epoch = 1;
  s.step = 42;
  s.global_step = 42;
  s.steps_per_epoch = 100;
  s.samples = 33;
  s.step_seconds = 0.0039;
  s.timeline = straggler_timeline();
  for (const auto& m : s.timeline.replicas) {
    ReplicaTiming t;
    t.shard_size = m.shard_size;
    t.compute_ms = m.compute_ms();
    t.allreduce_ms = m.replica == 0 ? 0.01 : 80;
    t.update_ms = m.update_ms();
    s.replicas.push_back(t);
  }
  return s;
}

StepPicture picture_of(const StepMetrics& s) {
  StepPicture pic;
  pic.global_step = s.global_step;
  pic.global_batch = s.samples;
  pic.devices = {"cpu:0/logical:0", "cpu:0/logical:1", "cpu:0/logical:2", "cpu:0/logical:3"};
  pic.replicas = s.replicas;
  pic.timeline = s.timeline;
  pic.communicator = "shared-memory";
  pic.parameters = 1000;
  return pic;
}

// The Strategy tab at 1100x700, the whole step drawn and nothing moving.
bool show_paused(StrategyView& view) {
  view.resize(1100, 700);
  view.show();
  if (!QTest::qWaitForWindowExposed(&view)) return false;
  view.set_mode(StrategyView::Mode::kPaused);
  return true;
}

// x on the step's clock from two known points of a replica's bars: the scale must be one line.
void check_one_clock(const std::function<QRectF(int, TimelinePhase)>& bar, const StepTimeline& t) {
  const double x0 = bar(0, TimelinePhase::kBackward).right();          // replica 0 ready at 0.41 ms
  const double x2 = bar(2, TimelinePhase::kBackward).right();          // replica 2 ready at 3.62 ms
  const double px_per_ms = (x2 - x0) / (3.62 - 0.41);
  QVERIFY(px_per_ms > 0);
  for (int r = 0; r < 4; ++r) {
    const auto& m = t.replicas[static_cast<size_t>(r)];
    // Every bar starts where its replica started, on the same clock.
    QVERIFY2(std::abs(bar(r, TimelinePhase::kCopy).left() - (x0 + (m.started - 0.41) * px_per_ms)) < 1.0,
             qPrintable(QString("replica %1 starts at x %2").arg(r).arg(bar(r, TimelinePhase::kCopy).left())));
    // Its wait runs from its own arrival to the straggler's; the all-reduce then starts together.
    const QRectF wait = bar(r, TimelinePhase::kWait);
    QVERIFY(std::abs(wait.left() - bar(r, TimelinePhase::kBackward).right()) < 0.5);
    if (r != 2) QVERIFY2(std::abs(wait.right() - x2) < 0.5, qPrintable(QString("replica %1 waits until x %2, not %3").arg(r).arg(wait.right()).arg(x2)));
    QVERIFY(std::abs(bar(r, TimelinePhase::kAllReduce).left() - x2) < 0.5);
    QVERIFY(std::abs(bar(r, TimelinePhase::kAllReduce).right() - (x0 + (m.reduced - 0.41) * px_per_ms)) < 1.0);
  }
  QCOMPARE(bar(2, TimelinePhase::kWait).width(), 0.0);  // the last to arrive waits for no one
  // Replica 0 waited longest: 3.21 ms against replica 1's 2.72 ms.
  QVERIFY(bar(0, TimelinePhase::kWait).width() > bar(1, TimelinePhase::kWait).width());
  // Replica 3 started late: its copy begins after everyone else's.
  QVERIFY(bar(3, TimelinePhase::kCopy).left() > bar(2, TimelinePhase::kCopy).left() + 0.5 * px_per_ms);
  // The all-reduce is its 0.08 ms, not the 80 ms pace wait before the step.
  QVERIFY2(bar(1, TimelinePhase::kAllReduce).width() < 0.1 * px_per_ms + 1,
           qPrintable(QString("%1 px of all-reduce at %2 px/ms").arg(bar(1, TimelinePhase::kAllReduce).width()).arg(px_per_ms)));
}
}  // namespace

class StrategyTimelineTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void theStrategyTabDrawsTheStepOnOneClock() {
    TrainingController controller;
    LiveRun run(&controller);
    StrategyView view(&run, &controller);
    QVERIFY(show_paused(view));
    const StepMetrics step = straggler_step();
    view.diagram()->set_picture(picture_of(step));
    view.diagram()->set_phase(StepPhase::kSyncCheck, 1.0);

    // The sentence names the replica that arrived last, and why, from the same numbers.
    const QString said = view.explain(StepPhase::kAllReduce);
    QVERIFY2(said.contains("Replica 2 arrived last at the all-reduce, 3.2 ms after replica 0"), qPrintable(said));
    QVERIFY2(said.contains(QString::fromStdString(straggler_sentence(step.timeline))), qPrintable(said));
    QVERIFY2(!said.contains("slowest"), qPrintable(said));

    StepDiagram* d = view.diagram();
    check_one_clock([d](int r, TimelinePhase ph) { return d->bar_rect(r, ph); }, step.timeline);
    if (QTest::currentTestFailed()) return;

    // The pace wait is its own span, left of the clock, touching no replica's all-reduce or wait.
    const QRectF pace = d->idle_rect(0, IdleKind::kPace);
    QVERIFY(pace.width() > 0);
    for (int r = 0; r < 4; ++r) {
      QVERIFY(!pace.intersects(d->bar_rect(r, TimelinePhase::kAllReduce)));
      QVERIFY(!pace.intersects(d->bar_rect(r, TimelinePhase::kWait)));
      QVERIFY(pace.right() < d->bar_rect(r, TimelinePhase::kCopy).left());
    }
    QVERIFY(d->idle_rect(0, IdleKind::kPause).isEmpty());

    // What is painted is what the geometry says: the straggler's backward pass in its colour, the
    // pace in grey, not in the all-reduce's orange.
    const QImage shot = d->grab().toImage();
    // Sampled near a bar's top left corner: its time label is written in its middle.
    const auto colour_at = [&](const QRectF& r) { return QColor(shot.pixel(QPointF(r.left() + 3, r.top() + 2).toPoint())); };
    QCOMPARE(colour_at(d->bar_rect(2, TimelinePhase::kBackward)), timeline_phase_color(TimelinePhase::kBackward));
    QCOMPARE(colour_at(d->bar_rect(0, TimelinePhase::kForward)), timeline_phase_color(TimelinePhase::kForward));
    const QColor in_pace = colour_at(pace);
    QVERIFY2(in_pace != timeline_phase_color(TimelinePhase::kAllReduce), qPrintable(in_pace.name()));
    QVERIFY2(std::abs(in_pace.red() - in_pace.blue()) < 40, qPrintable(in_pace.name()));  // grey, not orange
  }

  // The Live page's replica view reads the same timeline: the same straggler, the same waits.
  void theReplicaViewShowsTheSameStraggler() {
    ReplicaView view;
    view.resize(900, 300);
    RunStarted started;
    started.devices = {"cpu:0/logical:0", "cpu:0/logical:1", "cpu:0/logical:2", "cpu:0/logical:3"};
    view.on_started(started);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const StepMetrics step = straggler_step();
    view.on_step(step);
    QCOMPARE(view.straggler_label()->text(), QString::fromStdString(straggler_sentence(step.timeline)));
    QVERIFY(view.straggler_label()->text().startsWith("Replica 2 arrived last"));
    ReplicaBars* bars = view.bars();
    check_one_clock([bars](int r, TimelinePhase ph) { return bars->bar_rect(r, ph); }, step.timeline);
  }

  // Several processes: the timeline that comes with step 42 describes step 41, and both views say so.
  void anEarlierStepIsLabelledAsSuch() {
    ReplicaView view;
    StepMetrics step = straggler_step();
    step.timeline.global_step = 41;
    view.on_step(step);
    QVERIFY2(view.straggler_label()->text().startsWith("Step 41: Replica 2"), qPrintable(view.straggler_label()->text()));
  }

  // Two processes whose buckets crossed during backward (--overlap): under each replica's bar, the
  // exchange's strip, hatched in its colour where backward still ran, solid where the exchange did.
  void theBucketsDuringBackwardAreDrawnUnderIt() {
    TrainingController controller;
    LiveRun run(&controller);
    StrategyView view(&run, &controller);
    QVERIFY(show_paused(view));
    StepMetrics step = straggler_step();
    step.timeline.replicas.resize(2);
    step.replicas.resize(2);
    step.timeline.replicas[1].process = 1;
    step.timeline.processes.clear();
    for (int p = 0; p < 2; ++p) {
      ProcessSpans spans;
      spans.process = p;
      spans.exchange_begin = 0.95;
      spans.exchange_end = 3.70;
      spans.step_end = 3.9;
      spans.overlap_begin = p == 0 ? 0.27 : 0.52;  // inside each one's backward
      spans.overlap_end = 0.90;
      step.timeline.processes.push_back(spans);
    }
    StepPicture pic = picture_of(step);
    pic.devices.resize(2);
    view.diagram()->set_picture(pic);
    view.diagram()->set_phase(StepPhase::kSyncCheck, 1.0);
    StepDiagram* d = view.diagram();
    const QImage shot = d->grab().toImage();
    const QRgb strip = timeline_phase_color(TimelinePhase::kAllReduce).darker(140).rgb();
    for (int r = 0; r < 2; ++r) {
      const QRectF backward = d->bar_rect(r, TimelinePhase::kBackward);
      QVERIFY(backward.width() > 8);
      const int y = static_cast<int>(backward.bottom() + 4);
      int hatched = 0, other = 0;  // along the strip under backward's second half
      for (int x = static_cast<int>(backward.center().x()); x < static_cast<int>(backward.right()) - 1; ++x)
        (shot.pixel(x, y) == strip ? hatched : other) += 1;
      QVERIFY2(hatched > 0 && other > 0, qPrintable(QString("replica %1: %2 pixels in the strip's colour, %3 not")
                                                        .arg(r).arg(hatched).arg(other)));
      const QRectF reduce = d->bar_rect(r, TimelinePhase::kAllReduce);
      QCOMPARE(QColor(shot.pixel(static_cast<int>(reduce.center().x()), y)), QColor(strip));  // the exchange: solid
      QVERIFY(overlap_span(step.timeline, r).ms() > 0);
    }
  }

  // Export trace… writes the steps the view holds as a Chrome trace.
  void exportTraceWritesTheHeldSteps() {
    TrainingController controller;
    LiveRun run(&controller);
    StrategyView view(&run, &controller);
    QTemporaryDir dir;
    const QString path = dir.filePath("steps.json");
    QVERIFY(view.export_trace(path).startsWith("No step with a timeline yet"));
    run.begin();
    RunStarted started;
    started.devices = {"cpu:0/logical:0", "cpu:0/logical:1", "cpu:0/logical:2", "cpu:0/logical:3"};
    started.dataset = "blobs";
    Q_EMIT controller.started(started);
    std::vector<StepMetrics> batch;
    for (int64_t s = 40; s <= 42; ++s) {
      StepMetrics m = straggler_step();
      m.global_step = m.step = s;
      m.timeline.global_step = s;
      m.wall_seconds = 0.01 * static_cast<double>(s);
      batch.push_back(m);
    }
    Q_EMIT controller.steps(batch);
    const QString said = view.export_trace(path);
    QVERIFY2(said.startsWith("Trace written: ") && said.contains("steps 40 to 42"), qPrintable(said));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    QVERIFY(doc.isObject());
    QVERIFY(doc.object().value("traceEvents").isArray());
    QVERIFY(doc.object().value("traceEvents").toArray().size() > 3 * 4 * 5);
  }
};

QTEST_MAIN(StrategyTimelineTest)
#include "test_strategy_timeline.moc"
