// The scaling page's what-if, on Qt's offscreen platform: beside the measured boxes of a study on
// 1 and 2 logical devices, the curve predicted from the runs' step timelines (at the measured
// counts and on to 512 devices), a link to choose, and the sentence that says where the run
// becomes communication-bound; runs recorded without timelines say why there is no prediction.
#include <QToolButton>
#include <QApplication>
#include <QChart>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QProcess>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QtTest>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include "../ui_test_helpers.h"
#include "mirror/runs/predict.h"
#include "mirror/runs/run_reader.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/reading_details.h"
#include "ui/runs/scaling_page.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
QXYSeries* series_named(QChartView* view, const QString& object_name) {
  for (QAbstractSeries* s : view->chart()->series())
    if (s->objectName() == object_name) return qobject_cast<QXYSeries*>(s);
  return nullptr;
}
}  // namespace

class ScalingPageTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;
  std::vector<RunRecord> runs_;  // the same config on 1 and 2 logical devices

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    const QString root = tmp_.path() + "/runs";
    QDir().mkpath(root);
    for (const auto& [name, logical] : {std::pair{"20261204-100000-one", 1}, std::pair{"20261204-100100-two", 2}})
      runs_.push_back(read_run(record_run(root, name, 0.05, logical).toStdString()));
  }

  void thePredictedCurveStandsBesideTheMeasuredBoxes() {
    ScalingPage page;
    page.resize(1280, 720);
    page.show();
    page.set_runs(runs_);
    QVERIFY(page.has_study());
    QVERIFY2(page.prediction().has_value(), qPrintable(page.prediction_reading()->text()->text()));
    const Prediction& p = *page.prediction();
    QCOMPARE(p.comm.link.name, std::string("shared memory"));  // "as measured here": the runs' own all-reduce, in one process
    QVERIFY(p.model.measured_link_fitted);
    QCOMPARE(p.model.measured_replicas, 1);  // compute as one device ran alone

    // At the measured counts, on the throughput chart: one predicted point per measured box.
    QXYSeries* here = series_named(page.throughput_chart(), "scaling_predicted");
    QVERIFY(here);
    QCOMPARE(here->count(), 2);
    for (int i = 0; i < 2; ++i) {
      const int devices = page.study().points[static_cast<size_t>(i)].replicas;
      const auto it = std::find_if(p.points.begin(), p.points.end(), [&](const auto& q) { return q.devices == devices; });
      QVERIFY(it != p.points.end());
      QCOMPARE(here->at(i).y(), it->samples_per_s);
    }
    // From 1 to 512 devices on the what-if chart (x: log2 of the count), the measured medians on
    // the same axes.
    QXYSeries* curve = series_named(page.whatif_chart(), "whatif_predicted");
    QVERIFY(curve);
    QCOMPARE(curve->count(), 10);
    for (int i = 0; i < curve->count(); ++i) {
      QCOMPARE(curve->at(i).x(), static_cast<double>(i));  // 1, 2, 4, ..., 512 devices
      QCOMPARE(curve->at(i).y(), p.points[static_cast<size_t>(i)].samples_per_s);
      QVERIFY(curve->at(i).y() > 0);
    }
    QXYSeries* measured = series_named(page.whatif_chart(), "whatif_measured");
    QVERIFY(measured);
    QCOMPARE(measured->count(), 2);
    QCOMPARE(measured->at(1).x(), 1.0);  // 2 replicas
    QCOMPARE(measured->at(1).y(), page.study().points[1].samples_per_sec);
    // The figures behind Details are the prediction's, and say the devices here were logical; the
    // paragraph above says so in plain words, without a figure of milliseconds or microseconds.
    const QString text = page.prediction_reading()->details()->text();
    QVERIFY2(text.contains(QString::fromStdString(p.bound_sentence())), qPrintable(text));
    QVERIFY2(text.contains("logical devices sharing one machine"), qPrintable(text));
    const QString plain = page.prediction_reading()->text()->text();
    QVERIFY2(plain.startsWith("What if you had more devices?"), qPrintable(plain));
    // The words go the way the line goes: "fastest on N" where it falls after N, else "faster".
    const auto& points = page.prediction()->points;
    const auto peak = std::max_element(points.begin(), points.end(), [](const auto& a, const auto& b) {
      return a.samples_per_s < b.samples_per_s;
    });
    if (peak->devices < points.back().devices)
      QVERIFY2(plain.contains(QString("fastest on %1 device").arg(peak->devices)), qPrintable(plain));
    else
      QVERIFY2(plain.contains("still makes training faster"), qPrintable(plain));
    QVERIFY2(!plain.contains(" ms") && !plain.contains("µs") && !plain.contains("samples/s"), qPrintable(plain));
    QVERIFY(page.prediction_reading()->toggle()->isVisibleTo(&page));
  }

  // The throughput chart is half the page wide: at 1280x720 in projector-sized type its legend cut
  // the names to "me…". Its key now sits under it, every name whole; the chart draws no cut name.
  void theThroughputChartsKeyKeepsEveryNameWhole() {
    const QFont normal = QApplication::font();
    QFont big = normal;
    big.setPixelSize(720 / 40 + 1);  // projector mode's type: at least a fortieth of the screen's height
    QApplication::setFont(big);
    ScalingPage page;
    page.resize(1280, 720);
    page.show();
    page.set_runs(runs_);
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QChartView* view = page.throughput_chart();
    QStringList cut;
    if (view->chart()->legend()->isVisible())
      for (QGraphicsItem* item : view->scene()->items())
        if (auto* text = dynamic_cast<QGraphicsTextItem*>(item);
            text && text->isVisible() && view->chart()->legend()->isAncestorOf(text) &&
            (text->toPlainText().contains(QChar(0x2026)) || text->toPlainText().contains("...")))
          cut << text->toPlainText();
    QVERIFY2(cut.isEmpty(), qPrintable(cut.join(", ")));
    QTextDocument doc;
    doc.setHtml(page.throughput_key()->text());
    const QString key = doc.toPlainText().replace(QChar(0x00a0), ' ');
    int named = 0;
    for (QAbstractSeries* s : view->chart()->series()) {
      if (s->name().isEmpty()) continue;
      ++named;
      QVERIFY2(key.contains(s->name()), qPrintable(s->name() + " not in " + key));
    }
    QVERIFY(named >= 4);  // measured tries, perfect scaling, predicted, efficiency
    QVERIFY(page.throughput_key()->isVisible());
    QApplication::setFont(normal);
  }

  // A study's report keys its throughput picture as the page does, under it: the chart has no
  // legend of its own (the HTML report's picture had no key at all).
  void aStudysReportKeysItsThroughputPicture() {
    CompareView view;
    view.resize(1280, 720);
    view.show();
    view.set_runs(runs_);
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (const char* name : {"report.html", "report.md"}) {
      const QString path = tmp_.filePath(name);
      QVERIFY(view.export_report(path));
      QFile f(path);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QString text = QString::fromUtf8(f.readAll());
      const qsizetype throughput = text.indexOf("Throughput"), step_time = text.indexOf("Step time");
      QVERIFY2(throughput >= 0 && step_time > throughput, name);
      QTextDocument doc;
      doc.setHtml(text.mid(throughput, step_time - throughput));
      const QString under = doc.toPlainText().replace(QChar(0x00a0), ' ').remove('\\');  // Markdown's escapes
      for (const char* series : {"measured tries", "perfect scaling", "predicted", "efficiency (%)"})
        QVERIFY2(under.contains(series), qPrintable(QString("%1: no \"%2\" under the throughput picture").arg(name, series)));
    }
  }

  void aSlowerLinkMakesItCommunicationBoundSooner() {
    ScalingPage page;
    page.set_runs(runs_);
    const int ib = page.link_choice()->findData(QString("ib-ndr400"));
    const int ten = page.link_choice()->findData(QString("10gbe"));
    QVERIFY(ib > 0 && ten > 0);
    page.link_choice()->setCurrentIndex(ib);
    QVERIFY(page.prediction().has_value());
    QCOMPARE(page.prediction()->comm.link.name, std::string("ib-ndr400"));
    const int fast_from = page.prediction()->communication_bound_from;
    page.link_choice()->setCurrentIndex(ten);
    QVERIFY(page.prediction().has_value());
    const Prediction& slow = *page.prediction();
    QCOMPARE(slow.comm.link.name, std::string("10gbe"));
    // Strong scaling shrinks each device's share of the batch to one example by 512 devices while
    // the ring's 2(n-1) messages grow: over 10 GbE the all-reduce overtakes the compute.
    QVERIFY(slow.communication_bound_from > 0);
    QVERIFY(fast_from == 0 || slow.communication_bound_from <= fast_from);
    const QString text = page.prediction_reading()->details()->text();
    QVERIFY2(text.contains(QString("Communication-bound from %1 devices").arg(slow.communication_bound_from)),
             qPrintable(text));
    const QString plain = page.prediction_reading()->text()->text();
    QVERIFY2(plain.contains("sending the gradients between them takes longer than computing them"), qPrintable(plain));
    QVERIFY(series_named(page.whatif_chart(), "whatif_bound"));
    QCOMPARE(series_named(page.whatif_chart(), "whatif_bound")->at(0).x(),
             std::log2(static_cast<double>(slow.communication_bound_from)));
  }

  // One recipe: for the same runs and link, the page predicts exactly what `mirrortrain predict
  // RUN RUN --json` prints (the fit, the scaling the study keeps, the device counts, every point).
  void theWindowPredictsWhatTheCommandLinePredicts() {
    const QString program = qEnvironmentVariable("MIRRORTRAIN");
    QVERIFY2(!program.isEmpty(), "MIRRORTRAIN is not set: run this test through ctest");
    ScalingPage page;
    page.set_runs(runs_);
    for (const QString& link : {QString(), QString("10gbe"), QString("ib-ndr400")}) {
      page.link_choice()->setCurrentIndex(page.link_choice()->findData(link));
      QVERIFY2(page.prediction().has_value(), qPrintable(page.prediction_reading()->text()->text()));
      const Prediction& window = *page.prediction();
      QStringList args = {"predict"};
      for (const RunRecord& r : runs_) args << QString::fromStdString(r.dir);
      args << "--json";
      if (!link.isEmpty()) args << "--link" << link;
      QProcess cli;
      cli.start(program, args);
      QVERIFY(cli.waitForFinished(60000));
      QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0, cli.readAllStandardError().constData());
      const nlohmann::json j = nlohmann::json::parse(cli.readAllStandardOutput().toStdString());
      QCOMPARE(QString::fromStdString(j.at("scaling").get<std::string>()), QString(scaling_name(window.scaling)));
      QCOMPARE(QString::fromStdString(j.at("link").at("name").get<std::string>()), QString::fromStdString(window.comm.link.name));
      const nlohmann::json& points = j.at("points");
      QCOMPARE(points.size(), window.points.size());
      for (size_t i = 0; i < points.size(); ++i) {
        const PredictedPoint& w = window.points[i];
        QCOMPARE(points[i].at("devices").get<int>(), w.devices);
        QCOMPARE(points[i].at("global_batch").get<int64_t>(), w.global_batch);
        // JSON carries doubles to the last bit (shortest round trip), so the same recipe is equal.
        QCOMPARE(points[i].at("samples_per_s").get<double>(), w.samples_per_s);
        QCOMPARE(points[i].at("allreduce_ms").get<double>(), w.comm_s * 1e3);
      }
    }
  }

  void runsWithoutTimelinesSayWhyThereIsNoPrediction() {
    // As runs recorded before step timelines read: no timeline.jsonl.
    std::vector<RunRecord> old;
    for (const RunRecord& r : runs_) {
      const std::string copy = tmp_.path().toStdString() + "/old/" + r.name;
      std::filesystem::create_directories(copy);
      std::filesystem::copy(r.dir, copy, std::filesystem::copy_options::recursive);
      std::filesystem::remove(copy + "/timeline.jsonl");
      old.push_back(read_run(copy));
    }
    ScalingPage page;
    page.set_runs(old);
    QVERIFY(page.has_study());
    QVERIFY(!page.prediction().has_value());
    QVERIFY2(page.prediction_reading()->text()->text().startsWith("No prediction: "),
             qPrintable(page.prediction_reading()->text()->text()));
    QVERIFY(page.whatif_chart()->chart()->series().isEmpty());
    QVERIFY(!series_named(page.throughput_chart(), "scaling_predicted"));
  }

  void theScalingParagraphIsInPlainWordsWithTheFiguresBehindDetails() {
    ReadingWithDetails reading;
    reading.set_text("With 1 replica the model trained on 100 examples a second.", "Baseline: 1 replica with 2 threads.");
    reading.show();
    QVERIFY(!reading.toggle()->isHidden());
    QVERIFY(reading.details()->isHidden());
    reading.toggle()->click();
    QVERIFY(!reading.details()->isHidden());
    QCOMPARE(reading.details()->text(), QString("Baseline: 1 replica with 2 threads."));
    reading.set_text("Select two or more runs.");
    QVERIFY(reading.toggle()->isHidden());
    QVERIFY(reading.details()->isHidden());
  }
};

QTEST_MAIN(ScalingPageTest)
#include "test_scaling_page.moc"
