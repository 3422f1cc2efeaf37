// The Live page's charts, on a launcher of their own, no window: on Qt's offscreen platform: points plotted during
// a run, charts behind another page catching up when shown, exports as PNG, SVG and CSV, axes on
// nice whole steps, and the smoothing and decimation behind the lines.
#include <QChart>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QLabel>
#include <QTabWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QXYSeries>
#include <QtTest>

#include <algorithm>

#include "../ui_test_helpers.h"
#include "mirror/data/dataset.h"
#include "mirror/runs/run_reader.h"
#include "ui/live/metric_chart.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/live/live_page.h"

using namespace mirror;
using namespace mirror::ui;

// The Live page with what it needs and no more: a launcher (its LiveRun) and the settings the
// run starts from (the small blobs set); shown at 900x600.
struct LiveBench {
  RunLauncher launcher;
  LivePage page{launcher.live()};
  SetupTabs setup;
  explicit LiveBench(int epochs) {
    page.resize(900, 600);
    page.show();
    open_small_setup(setup, epochs);
  }
  void start() { launcher.start_run(setup.current_config(), setup.dataset()); }
};

class LivePageTest : public QObject {
  Q_OBJECT

 private:
  // A run's metrics for `steps` steps, the loss falling as 1/step.
  static RunMetrics falling_loss(int steps) {
    RunMetrics m;
    for (int step = 1; step <= steps; ++step) {
      StepMetrics s;
      s.global_step = step;
      s.loss = 1.0 / step;
      m.add_step(s);
    }
    return m;
  }

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // The page follows a run started on a launcher of its own: no window, no toolbar.
  void trainProducesChartPointsAndFinishes() {
    LiveBench bench(3);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(bench.launcher.live(), &LiveRun::run_finished);
    bench.start();
    QVERIFY(bench.launcher.running());
    QVERIFY(done.wait(60000));
    QCOMPARE(bench.launcher.live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(bench.launcher.live()->metrics().epochs(), 3);
    QCOMPARE(bench.launcher.live()->metrics().steps(), 3 * 32);  // 2,000 examples at batch 64
    QTRY_VERIFY(bench.page.chart(Metric::kLoss)->plotted_points() > 0);
    QVERIFY(bench.launcher.live()->metrics().val_epochs(Metric::kAccuracy).back().y() > 0.9);
    QVERIFY(!bench.launcher.running());
    // The run was recorded like a mirrortrain run.
    QVERIFY(!bench.launcher.run_dir().isEmpty());
    const auto record = read_run(bench.launcher.run_dir().toStdString());
    QCOMPARE(QString::fromStdString(record.status), QString("finished"));
    QCOMPARE(record.epochs.size(), size_t{3});
  }

  // The charts do no work while another page is in front of theirs in a window on screen (the
  // Strategy tab in class), and show the whole run when their page comes back.
  void chartsBehindAnotherPageCatchUpWhenShown() {
    RunLauncher launcher;
    SetupTabs setup;
    open_small_setup(setup, 2);
    if (QTest::currentTestFailed()) return;
    QTabWidget pages;
    auto* page = new LivePage(launcher.live());
    pages.addTab(page, "Live");
    pages.addTab(new QLabel("another page"), "Strategy");
    pages.resize(900, 600);
    pages.show();
    QSignalSpy done(launcher.live(), &LiveRun::run_finished);
    launcher.start_run(setup.current_config(), setup.dataset());
    pages.setCurrentIndex(1);
    QVERIFY(done.wait(60000));
    QCOMPARE(launcher.live()->last_result().status, RunStatus::kFinished);
    QCOMPARE(page->chart(Metric::kLoss)->plotted_points(), 0);
    pages.setCurrentIndex(0);
    QTRY_VERIFY(page->chart(Metric::kLoss)->plotted_points() > 0);
    QCOMPARE(page->chart(Metric::kLoss)->plotted_points(), 2 * 32);  // every step (64 fit the chart's width)
  }

  void chartsExportAsPngSvgAndCsv() {
    LiveBench bench(1);
    if (QTest::currentTestFailed()) return;
    QSignalSpy done(bench.launcher.live(), &LiveRun::run_finished);
    bench.start();
    QVERIFY(done.wait(60000));
    QTemporaryDir dir;
    auto* chart = bench.page.chart(Metric::kLoss);
    QTRY_VERIFY(chart->plotted_points() > 0);
    QVERIFY(chart->export_png(dir.filePath("loss.png")));
    QVERIFY(chart->export_svg(dir.filePath("loss.svg")));
    QVERIFY(QImage(dir.filePath("loss.png")).width() > 100);
    QFile svg(dir.filePath("loss.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().contains("<svg"));
    const QString csv = bench.launcher.live()->metrics().to_csv();
    QCOMPARE(csv.count('\n'), 1 + 32);  // header + one row per step
    QVERIFY(csv.startsWith("step,loss,accuracy"));
  }

  void axesTickOnNiceWholeSteps() {
    QCOMPARE(nice_step(3032, 5, true), 1000.0);
    QCOMPARE(nice_step(758, 5, true), 200.0);
    QCOMPARE(nice_step(1, 5, true), 1.0);
    QCOMPARE(nice_step(0.8, 5, false), 0.2);
    MetricChart chart(Metric::kLoss, "Loss");
    auto x_axis = [&] { return qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0)); };
    // A new chart, before any run: "0 1", not "0 0 1 1 1" (the window used to open that way).
    QCOMPARE(x_axis()->tickInterval(), 1.0);
    QCOMPARE(x_axis()->tickType(), QValueAxis::TicksDynamic);
    chart.refresh(RunMetrics());  // empty: "0 1", not "0 0 1 1 1"
    QCOMPARE(x_axis()->max(), 1.0);
    QCOMPARE(x_axis()->tickInterval(), 1.0);
    QCOMPARE(x_axis()->labelFormat(), QString("%.0f"));
    chart.refresh(falling_loss(758));
    QCOMPARE(x_axis()->max(), 800.0);
    QCOMPARE(x_axis()->tickInterval(), 200.0);
  }

  // Three charts abreast in projector type leave each plot ~150 px: the step labels thin out
  // rather than run together ("10002000 3000"), and come back when the chart widens.
  void stepLabelsStandApartOnANarrowChart() {
    MetricChart chart(Metric::kLoss, "Loss");
    chart.set_projector(true);
    QFont big = chart.font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    chart.chart()->axes(Qt::Horizontal).value(0)->setLabelsFont(big);
    const RunMetrics m = falling_loss(2814);
    auto* x = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    auto labels_fit = [&] {
      const int labels = qRound((x->max() - x->min()) / x->tickInterval()) + 1;
      const double widest = QFontMetricsF(x->labelsFont()).horizontalAdvance(QString::number(x->max(), 'f', 0));
      return labels >= 2 && (labels - 1) * widest <= chart.chart()->plotArea().width();
    };
    for (int width : {200, 900}) {
      chart.resize(width, 320);
      chart.show();
      QVERIFY(QTest::qWaitForWindowExposed(&chart));
      chart.refresh(m);
      QTRY_VERIFY2_WITH_TIMEOUT(labels_fit(), qPrintable(QString("at %1 px: %2 labels every %3 on a plot %4 px wide")
                                             .arg(width)
                                             .arg(qRound(x->max() / x->tickInterval()) + 1)
                                             .arg(x->tickInterval())
                                             .arg(chart.chart()->plotArea().width())),
                                5000);
      if (width == 900) QCOMPARE(x->tickInterval(), 1000.0);  // wide: the usual five-odd labels
    }
  }

  // Every line of a chart stands out from its background by WCAG's 3:1 for graphics, in both
  // themes, the faint raw losses too (1.5:1 on the dark theme); and they stay fainter than the
  // smoothed line they sit under.
  void everyLineKeepsThreeToOneOnItsChartInBothThemes() {
    for (bool dark : {false, true}) {
      MetricChart chart(Metric::kLoss, "Loss");
      chart.set_dark(dark);
      const std::vector<QColor> backgrounds = chart_background_colours(*chart.chart());
      QVERIFY(!backgrounds.empty());
      QColor raw, smooth;
      for (QAbstractSeries* s : chart.chart()->series()) {
        auto* xy = qobject_cast<QXYSeries*>(s);
        if (!xy) continue;
        for (const QColor& bg : backgrounds) {
          const double ratio = contrast_ratio(xy->color(), bg);
          QVERIFY2(ratio >= 3.0, qPrintable(QString("%1 theme: \"%2\" %3 on %4: %5:1").arg(dark ? "dark" : "light", xy->name(),
                                                xy->color().name(), bg.name()).arg(ratio, 0, 'f', 2)));
        }
        if (xy->name().contains("step") && !xy->name().contains("smoothed")) raw = xy->color();
        if (xy->name().contains("smoothed")) smooth = xy->color();
      }
      QVERIFY2(raw.isValid() && smooth.isValid() && raw != smooth, qPrintable(raw.name() + " " + smooth.name()));
    }
  }

  void smoothingIsDebiasedAndDecimationKeepsExtremes() {
    DebiasedEma ema(0.9);
    QCOMPARE(ema.add(5.0), 5.0);  // no pull towards zero at the start
    QVector<QPointF> points;
    for (int i = 0; i < 100000; ++i) points.push_back({double(i), i == 5000 ? 100.0 : 1.0});
    const auto d = decimate(points, 500);
    QVERIFY(d.size() <= 1000);
    QVERIFY(std::any_of(d.begin(), d.end(), [](const QPointF& p) { return p.y() == 100.0; }));
  }
};

QTEST_MAIN(LivePageTest)
#include "test_live_page.moc"
