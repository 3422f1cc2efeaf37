// The compare view on three recorded runs, on Qt's offscreen platform: the runs overlaid on every
// x axis, smoothed and on a log axis, the table of what differs, and the exports (PNG, SVG, HTML
// and Markdown reports); runs that differ only in learning rate get no Scaling section.
#include <QAreaSeries>
#include <QChart>
#include <QHeaderView>
#include <QChartView>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include "../ui_test_helpers.h"
#include "mirror/runs/run_reader.h"
#include "ui/runs/compare_report.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/sweep_page.h"
#include "points_run.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
QString text_of(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Pixels within a small distance of `c`.
int pixels_like(const QImage& image, const QColor& c) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor p = image.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) + std::abs(p.green() - c.green()) + std::abs(p.blue() - c.blue()) < 30) ++n;
    }
  return n;
}

// A chart's series but the faint raw lines under the smoothed ones.
QList<QAbstractSeries*> drawn(QChart* chart) {
  QList<QAbstractSeries*> out;
  for (QAbstractSeries* s : chart->series())
    if (s->objectName() != "raw") out << s;
  return out;
}

int column(const QTableWidget* t, const QString& header) {
  for (int c = 0; c < t->columnCount(); ++c)
    if (t->horizontalHeaderItem(c)->text() == header) return c;
  return -1;
}
}  // namespace

class CompareViewTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  QStringList runs_;  // lr 0.01 on 1 device, 0.05 on 2, 0.1 on 4

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    runs_ = record_three_runs(tmp_.path() + "/runs");
  }

  void compareViewOverlaysThreeRecordedRuns() {
    std::vector<RunRecord> runs;
    for (const auto& d : runs_) runs.push_back(read_run(d.toStdString()));
    CompareView view;
    view.resize(1200, 800);
    view.show();
    view.set_runs(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // One line per run in each chart, plus its validation line, over its raw steps drawn faintly;
    // the legend names each run once.
    QChart* loss = view.loss_chart()->chart();
    QCOMPARE(drawn(loss).size(), 6);
    QCOMPARE(loss->series().size() - drawn(loss).size(), 3);
    QVERIFY(loss->series()[0]->objectName() == "raw");  // under the others
    QStringList legend;
    for (auto* marker : loss->legend()->markers())
      if (marker->isVisible()) legend << marker->label();
    QCOMPARE(legend, QStringList({"20261130-100000-a", "20261130-100100-b", "20261130-100200-c"}));
    auto* first = qobject_cast<QLineSeries*>(drawn(loss)[0]);
    auto* second = qobject_cast<QLineSeries*>(drawn(loss)[2]);
    QVERIFY(first && second);
    QVERIFY(first->color() != second->color());
    QCOMPARE(first->color(), view.colour(0));
    // 512 examples in batches of 32: 16 steps an epoch, 32 in all.
    auto x_max = [&] { return qobject_cast<QValueAxis*>(loss->axes(Qt::Horizontal)[0])->max(); };
    QCOMPARE(x_max(), 32.0);
    QCOMPARE(first->at(first->count() - 1).x(), 32.0);
    view.set_x_axis(XAxis::kSamples);
    QCOMPARE(x_max(), 1024.0);
    view.set_x_axis(XAxis::kEpoch);
    QCOMPARE(x_max(), 2.0);
    first = qobject_cast<QLineSeries*>(drawn(loss)[0]);
    QCOMPARE(first->at(15).x(), 1.0);  // the last step of epoch 1
    double train_end = 0, wall_end = 0;
    for (const auto& r : runs) {
      train_end = std::max(train_end, r.steps.back().train_seconds);
      wall_end = std::max(wall_end, r.epochs.back().wall_seconds);
    }
    view.set_x_axis(XAxis::kTime);
    QCOMPARE(x_max(), train_end);
    view.set_x_axis(XAxis::kWall);
    QCOMPARE(x_max(), wall_end);
    QVERIFY(wall_end > train_end);  // validation counts in wall time only
    // Smoothing off shows the raw steps; the log axis is for the loss.
    view.set_x_axis(XAxis::kStep);
    view.set_smoothing(0);
    QCOMPARE(loss->series().size(), drawn(loss).size());  // no faint raw line under a raw one
    first = qobject_cast<QLineSeries*>(loss->series()[0]);
    QCOMPARE(first->at(0).y(), runs[0].steps[0].loss);
    view.set_smoothing(0.9);
    first = qobject_cast<QLineSeries*>(drawn(loss)[0]);
    QCOMPARE(first->at(0).y(), runs[0].steps[0].loss);  // debiased: the first point is the raw one
    QVERIFY(first->at(5).y() != runs[0].steps[5].loss);
    auto* raw = qobject_cast<QLineSeries*>(loss->series()[0]);  // and under it, the steps as they were
    QCOMPARE(raw->at(5).y(), runs[0].steps[5].loss);
    QVERIFY(raw->pen().widthF() < first->pen().widthF() && raw->color().alpha() < 255);
    view.set_log_loss(true);
    QVERIFY(qobject_cast<QLogValueAxis*>(loss->axes(Qt::Vertical)[0]) != nullptr);
    QVERIFY(qobject_cast<QValueAxis*>(view.accuracy_chart()->chart()->axes(Qt::Vertical)[0]) != nullptr);
    view.set_log_loss(false);
    // A dark theme keeps each run's colour; projector lines are thicker.
    view.set_dark(true);
    view.set_line_width(4);
    first = qobject_cast<QLineSeries*>(drawn(loss)[0]);
    QCOMPARE(first->color(), view.colour(0));
    QCOMPARE(first->pen().widthF(), 4.0);
    view.set_dark(false);
    view.set_line_width(2);
    // The table: the settings that differ, then the results.
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 3);
    const int lr = column(t, "optimizer.learning_rate");
    const int logical = column(t, "devices.logical");
    const int best = column(t, "best_val_accuracy");
    QVERIFY(lr > 0 && logical > 0 && best > 0);
    QCOMPARE(column(t, "seed"), -1);  // the same in every run: not shown
    QCOMPARE(t->item(1, lr)->text(), QString("0.05"));
    QCOMPARE(t->item(2, logical)->text(), QString("4"));
    QCOMPARE(t->item(0, best)->text(), QString::number(runs[0].best_val_accuracy, 'f', 4));
    // The runs differ in learning rate as well as device count: not one scaling study (medians
    // over different rates would measure the rates), so the scaling page says so and stays off.
    QVERIFY(!view.pages()->isTabEnabled(1));
    QVERIFY2(view.scaling_text()->text().startsWith(
                 "These runs differ in more than their devices (optimizer.learning_rate)"),
             qPrintable(view.scaling_text()->text()));

    // Exports: the image shows every run's colour; the SVG is a vector drawing; the reports embed the charts.
    view.set_x_axis(XAxis::kStep);
    const QString png = tmp_.filePath("compare.png");
    QVERIFY(view.export_png(png));
    const QImage image(png);
    QVERIFY(image.width() > 600 && image.height() > 400);
    for (size_t i = 0; i < 3; ++i) QVERIFY2(pixels_like(image, view.colour(i)) > 100, qPrintable(QString("run %1").arg(i)));
    const QString svg = tmp_.filePath("compare.svg");
    QVERIFY(view.export_svg(svg));
    QVERIFY(text_of(svg).contains("<svg"));
    const QString html_path = tmp_.filePath("report.html");
    QVERIFY(view.export_report(html_path));
    const QString html = text_of(html_path);
    QCOMPARE(html.count("data:image/png;base64,"), 2);  // loss and accuracy: no scaling study here
    QVERIFY(html.contains("<td>0.05</td>"));
    QVERIFY(!html.contains("<h2>Scaling</h2>"));
    // The report's key is the view's (it described dashed validation lines the charts no longer draw).
    QVERIFY(view.findChild<QLabel*>("compare_hint")->text().contains(comparison_key()));
    QVERIFY2(html.contains(comparison_key().toHtmlEscaped()) && !html.contains("dashed"), qPrintable(html.left(600)));
    const int at = html.indexOf("base64,") + 7;
    const QImage embedded = QImage::fromData(QByteArray::fromBase64(html.mid(at, html.indexOf('"', at) - at).toLatin1()));
    QCOMPARE(embedded.size(), QSize(900, 420));
    const QString md_path = tmp_.filePath("report.md");
    QVERIFY(view.export_report(md_path));
    const QString md = text_of(md_path);
    QVERIFY(md.startsWith("# Run comparison"));
    QVERIFY(md.contains(comparison_key()) && !md.contains("dashed"));
    QVERIFY(md.contains("| run | optimizer.learning_rate |") || md.contains("| run | devices.logical |"));
    QCOMPARE(md.count("](data:image/png;base64,"), 2);
    QVERIFY(!view.export_report(tmp_.filePath("no/such/folder/report.html")));
  }

  // The broken-sync lesson's failed run is drawn over the healthy runs it diverged from (added
  // last: Qt Charts draws later series on top), and its legend entry says it failed; the others
  // keep their order and colours.
  void aFailedRunIsDrawnOnTopAndMarked() {
    std::vector<RunRecord> runs;
    for (const auto& d : runs_) runs.push_back(read_run(d.toStdString()));
    runs[0].status = "failed";  // the first: a reversed or unchanged order leaves it underneath
    CompareView view;
    view.resize(1600, 800);
    view.show();
    view.set_runs(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (QChartView* chart : {view.loss_chart(), view.accuracy_chart()}) {
      const QList<QAbstractSeries*> series = drawn(chart->chart());
      QCOMPARE(series.size(), 6);  // per run: training, then validation
      QStringList training;
      for (int i = 0; i < series.size(); i += 2) training << series[i]->name();
      QCOMPARE(training.size(), 3);
      QVERIFY2(training[2].startsWith(QString::fromUtf8("\u2715 failed: ")) && training[2].contains("100000-a"),
               qPrintable(training.join(" | ")));
      QVERIFY2(!training[0].contains("failed") && training[0].contains("100100-b"), qPrintable(training.join(" | ")));
      QVERIFY2(!training[1].contains("failed") && training[1].contains("100200-c"), qPrintable(training.join(" | ")));
      QCOMPARE(qobject_cast<QLineSeries*>(series[4])->color(), view.colour(0));  // its own colour, on top
      QCOMPARE(qobject_cast<QLineSeries*>(series[0])->color(), view.colour(1));
    }
  }

  // A legend never cuts a run's name to a stub: whole names where they fit, else hidden (the
  // table beside the charts shows each run's line and marker); nor takes a short chart's line.
  void legendsShowWholeNamesOrNone() {
    std::vector<RunRecord> runs;
    for (const auto& d : runs_) runs.push_back(read_run(d.toStdString()));
    CompareView view;
    view.resize(1600, 800);
    view.show();
    view.set_runs(runs);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(view.loss_chart()->chart()->legend()->isVisible());
    view.resize(500, 800);
    QTRY_VERIFY(!view.loss_chart()->chart()->legend()->isVisible());
    QVERIFY(!view.table()->item(0, 0)->icon().isNull());
    // Wide enough but short (a projector's 720 lines): the curves keep the legend's line.
    view.resize(1600, 800);
    QTRY_VERIFY(view.loss_chart()->chart()->legend()->isVisible());
    view.resize(1600, 260);
    QTRY_VERIFY(!view.loss_chart()->chart()->legend()->isVisible());
  }

  // Runs that differ only in learning rate are not a scaling study: the report has no Scaling
  // section (it used to add one, with efficiencies of runs on the same devices).
  void reportOfRunsOnTheSameDevicesHasNoScalingSection() {
    const QString root = tmp_.path() + "/lr-only";
    QDir().mkpath(root);
    std::vector<RunRecord> runs = {read_run(record_run(root, "20261130-110000-lr1", 0.01, 2).toStdString()),
                                   read_run(record_run(root, "20261130-110100-lr2", 0.05, 2).toStdString())};
    CompareView view;
    view.resize(1200, 800);
    view.set_runs(runs);
    const QString path = tmp_.filePath("lr-only.html");
    QVERIFY(view.export_report(path));
    const QString html = text_of(path);
    QVERIFY(!html.contains("<h2>Scaling</h2>"));
    QCOMPARE(html.count("data:image/png;base64,"), 2);  // loss and accuracy only
    QVERIFY(html.contains("20261130-110100-lr2"));
  }

  // Repeats read as one: two learning rates, three seeds each, grouped by learning rate are two
  // lines named with their value and N=3, each in a band that holds every one of its runs; with
  // "each run too" the six runs are drawn faintly under them. A group of one is its run.
  void runsGroupedBySettingAreAMeanInItsRangeWithN() {
    const QString root = tmp_.path() + "/seeds";
    QDir().mkpath(root);
    std::vector<RunRecord> runs;
    for (double lr : {0.01, 0.05})
      for (int seed : {1, 2, 3}) {
        TrainConfig c = mirror::testing::points_run(/*epochs=*/2, /*batch=*/32, /*logical=*/1, /*train_size=*/256, 64);
        c.optimizer.learning_rate = lr;
        c.seed = static_cast<uint64_t>(seed);
        runs.push_back(read_run(record_config(QString("%1/lr%2-seed%3").arg(root).arg(lr).arg(seed), c).toStdString()));
      }
    CompareView view;
    view.resize(1200, 800);
    view.show();
    view.set_runs(runs);
    QVERIFY(view.group_choice()->isVisibleTo(&view));
    QVERIFY(view.group_choice()->findText("by learning_rate") >= 0);
    QVERIFY(view.group_choice()->findText("by seed") >= 0);
    view.set_grouping("optimizer.learning_rate");
    const auto series_of = [&view](const QString& name) {
      QList<QAbstractSeries*> out;
      for (QAbstractSeries* s : view.loss_chart()->chart()->series())
        if (s->objectName() == name) out << s;
      return out;
    };
    const auto means = series_of("group_mean"), bands = series_of("group_band");
    QCOMPARE(means.size(), 2);
    QCOMPARE(bands.size(), 2);
    QCOMPARE(view.loss_chart()->chart()->series().size(), 4);  // no run's own line, raw or smoothed
    QVERIFY2(means[0]->name().contains("optimizer.learning_rate = 0.01") && means[0]->name().contains("(N=3)"),
             qPrintable(means[0]->name()));
    // Each run's loss at its last step lies within its group's band there, and the mean between.
    for (int g = 0; g < 2; ++g) {
      auto* band = static_cast<QAreaSeries*>(bands[g]);
      const QPointF top = band->upperSeries()->points().back(), bottom = band->lowerSeries()->points().back();
      const QPointF mean = static_cast<QLineSeries*>(means[g])->points().back();
      QVERIFY(bottom.y() <= mean.y() && mean.y() <= top.y());
      QVERIFY2(top.y() > bottom.y(), "three seeds left no range");
    }
    // The table's swatches follow the groups: the lr 0.05 runs wear the second group's colour.
    QCOMPARE(view.table()->item(3, 0)->data(Qt::UserRole).value<QColor>(), view.colour(1));
    QCOMPARE(view.table()->item(5, 0)->data(Qt::UserRole).value<QColor>(), view.colour(1));
    view.set_grouping("optimizer.learning_rate", /*members=*/true);
    QCOMPARE(view.loss_chart()->chart()->series().size(), 4 + 6);
    view.set_grouping("seed");
    QCOMPARE(series_of("group_mean").size(), 3);
    QVERIFY(series_of("group_mean")[0]->name().contains("(N=2)"));
    view.set_grouping("no.such.setting");  // not a setting they differ on: each run again
    QVERIFY(view.grouping().empty());
    QCOMPARE(series_of("group_mean").size(), 0);

    // The table sorts by a click on a column, numbers as numbers: best accuracy, highest last.
    const int best = column(view.table(), "best_val_accuracy");
    QVERIFY(best > 0);
    QTest::mouseClick(view.table()->horizontalHeader()->viewport(), Qt::LeftButton, {},
                      QPoint(view.table()->horizontalHeader()->sectionViewportPosition(best) + 5, 5));
    std::vector<double> sorted;
    for (int r = 0; r < view.table()->rowCount(); ++r) sorted.push_back(view.table()->item(r, best)->text().toDouble());
    QVERIFY(std::is_sorted(sorted.begin(), sorted.end()) || std::is_sorted(sorted.rbegin(), sorted.rend()));
    QVERIFY(sorted.front() != sorted.back());

    // The Sweep page: an axis for the learning rate, the seed and the result; the importance of each
    // in words, the strongest first; a line per run.
    SweepPage* sweep = view.sweep_page();
    QVERIFY(sweep->has_sweep());
    QVERIFY(view.pages()->isTabEnabled(view.pages()->indexOf(sweep)));
    QCOMPARE(sweep->plot()->axes().size(), size_t{3});
    QCOMPARE(sweep->plot()->axes().back().key, std::string("best_val_accuracy"));
    for (size_t run = 0; run < runs.size(); ++run) QVERIFY(sweep->plot()->point(run, 0).has_value());
    const QString words = sweep->importance()->text();
    QVERIFY2(words.contains("optimizer.learning_rate") && words.contains("seed") &&
                 words.contains("Spearman's rank correlation with best_val_accuracy"),
             qPrintable(words));
    sweep->metric_choice()->setCurrentIndex(sweep->metric_choice()->findText("final_loss"));
    QCOMPARE(sweep->plot()->axes().back().key, std::string("final_loss"));
    QVERIFY(sweep->importance()->text().contains("with final_loss"));
  }
};

QTEST_MAIN(CompareViewTest)
#include "test_compare_view.moc"
