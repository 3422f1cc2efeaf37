// Sweeps and the scaling study, on Qt's offscreen platform: the sweep dialog counts its runs and
// refuses bad values; a sweep and the scaling study run from the window, are compared when done
// (the study on the scaling page), and Stop during a sweep ends the sweep.
#include <QBoxPlotSeries>
#include <QBoxSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

#include "../setup/training_settings.h"
#include "mirror/data/dataset.h"
#include "mirror/runs/run_reader.h"
#include "mirror/runs/sweep.h"
#include "ui/classroom/learned_view.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/runs/runs_browser.h"
#include "ui/runs/sweep_dialog.h"
#include "ui/setup/dataset_panel.h"
#include "ui/setup/training_panel.h"
#include "ui/setup/setup_tabs.h"
#include "ui/run/run_launcher.h"
#include "ui/run/live_run.h"
#include "ui/window/main_window.h"

using namespace mirror;
using namespace mirror::ui;

class SweepsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void sweepDialogCountsRunsAndRefusesBadValues() {
    TrainConfig base = config_from_preset("spirals-mlp");
    SweepDialog d(base);
    d.learning_rates()->setText("0.01, 0.1");
    d.batch_sizes()->setText("16,32,64");
    QCOMPARE(d.points().size(), size_t{6});
    QCOMPARE(QString::fromStdString(d.points()[5].label), QString("lr=0.1 batch=64"));
    QCOMPARE(d.points()[5].config.devices.logical, base.devices.logical);
    d.logical_devices()->setText("1,2");
    QCOMPARE(d.points().size(), size_t{12});
    d.batch_sizes()->setText("16,fast");
    QVERIFY(d.points().empty());
    // Named as the field is, not by its config key.
    QCOMPARE(d.problem(), QString("Batch size: 'fast' is not a whole number"));
    // Spaces separate values as commas do.
    d.batch_sizes()->setText("16 32");
    d.learning_rates()->setText("0.01 0.1,  1");
    QCOMPARE(d.points().size(), size_t{12});
    // The dialog says what the runs will train: the dataset, the model and the devices.
    const QString intro = d.intro()->text();
    QVERIFY2(intro.contains("<b>spirals</b>") && intro.contains("<b>spirals-mlp</b>") && intro.contains("<b>the CPU</b>"),
             qPrintable(intro));
    d.batch_sizes()->setText("32");
    d.logical_devices()->setText("1");
    d.learning_rates()->setText("0.1");
    QCOMPARE(d.points().size(), size_t{1});
  }

  void sweepAndScalingStudyRunFromTheWindow() {
    MainWindow w(false);
    w.resize(1400, 900);
    w.show();
    w.setup()->apply_preset("spirals-mlp");
    w.setup()->dataset_panel()->set_dataset("blobs");
    w.setup()->dataset_panel()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!w.setup()->dataset_panel()->loading() && w.setup()->dataset_panel()->dataset() &&
                                 w.setup()->dataset_panel()->dataset()->info().name == "blobs", 30000);
    set_training(w.setup()->training_panel(), "adam", 0.01, 64, 1);
    TrainConfig base = w.setup()->current_config();
    base.max_steps = 12;
    QSignalSpy done(&w, &MainWindow::sweep_finished);
    w.start_sweep(expand_sweep(base, {parse_sweep_axis("lr=0.01,0.1")}), false);
    QVERIFY(w.launcher()->sweeping());
    QVERIFY(done.wait(120000));
    const QStringList dirs = done.at(0).at(0).toStringList();
    QCOMPARE(dirs.size(), 2);
    for (int i = 0; i < 2; ++i) {
      const RunRecord r = read_run(dirs[i].toStdString());
      QCOMPARE(r.status, std::string("finished"));
      QCOMPARE(r.run["sweep"]["index"].get<int>(), i + 1);
      QCOMPARE(r.steps.size(), size_t{12});
    }
    QCOMPARE(read_meta(dirs[1].toStdString()).name, std::string("lr=0.1"));
    // Compared on the Runs page when done.
    QCOMPARE(w.views()->currentWidget()->objectName(), QString("runs-page"));
    QCOMPARE(w.compare_view()->runs().size(), size_t{2});
    QVERIFY(!w.launcher()->sweeping());
    // One of them, on the Learned tab: what its model learned, as recorded.
    QVERIFY(!w.runs_browser()->learned_button()->isEnabled());  // two selected
    w.runs_browser()->select_runs({dirs[1]});
    QVERIFY(w.runs_browser()->learned_button()->isEnabled());
    w.runs_browser()->learned_button()->click();
    QCOMPARE(w.views()->currentWidget(), static_cast<QWidget*>(w.learned_view()));
    QVERIFY(w.learned_view()->showing_recorded());
    QVERIFY(w.learned_view()->shown());
    QCOMPARE(w.learned_view()->shown()->total(), w.setup()->dataset_panel()->dataset()->size(Split::kValidation));

    // The scaling study: 1, 2 and 4 logical devices, shown on the scaling page.
    done.clear();
    w.start_scaling_study();
    QVERIFY(done.wait(240000));
    QCOMPARE(done.at(0).at(0).toStringList().size(), 3 * kScalingTries);  // interleaved tries of each count
    QCOMPARE(w.compare_view()->pages()->currentIndex(), 1);
    QCOMPARE(w.compare_view()->scaling_table()->rowCount(), 3);
    QCOMPARE(w.compare_view()->scaling_table()->item(0, 0)->text(), QString("1"));
    QCOMPARE(w.compare_view()->scaling_table()->item(2, 0)->text(), QString("4"));
    QCOMPARE(w.compare_view()->scaling_table()->item(2, 1)->text(), QString::number(kScalingTries));
    // The paragraph in a student's words; the figures (threads, medians, load) one click away.
    const QString plain_words = w.compare_view()->scaling_text()->text();
    qInfo("scaling study: %s", qPrintable(plain_words));
    QVERIFY2(!plain_words.isEmpty() && !plain_words.contains("intra-op") && !plain_words.contains("load average", Qt::CaseInsensitive),
             qPrintable(plain_words));
    // The study's own Details (the what-if below has its own).
    auto* details = w.compare_view()->scaling_text()->parentWidget()->findChild<QLabel*>("reading_details");
    QVERIFY(details);
    const QString reading = details->text();
    QVERIFY2(reading.contains("Baseline: 1 replica") && reading.contains("median of 3 tries") &&
                 reading.contains("Load average (1 minute)"),
             qPrintable(reading));
    // Throughput: a box per count (slowest, median, fastest try) against a perfect-scaling line.
    auto* throughput = w.compare_view()->findChild<QChartView*>("scaling_throughput");
    QVERIFY(throughput);
    QBoxPlotSeries* boxes = nullptr;
    for (QAbstractSeries* series : throughput->chart()->series())
      if (auto* b = qobject_cast<QBoxPlotSeries*>(series)) boxes = b;
    QVERIFY(boxes);
    QCOMPARE(boxes->count(), 3);
    const QBoxSet* four = boxes->boxSets()[2];
    QCOMPARE(QString::number(four->at(QBoxSet::Median), 'f', 0), w.compare_view()->scaling_table()->item(2, 2)->text());
    QVERIFY(four->at(QBoxSet::LowerExtreme) <= four->at(QBoxSet::Median) &&
            four->at(QBoxSet::Median) <= four->at(QBoxSet::UpperExtreme));

    // Stop during a sweep ends the sweep, not just the run.
    done.clear();
    base.max_steps = 0;
    base.epochs = 50;
    w.start_sweep(expand_sweep(base, {parse_sweep_axis("lr=0.01,0.02,0.03")}), false);
    QTRY_VERIFY_WITH_TIMEOUT(w.launcher()->live()->metrics().steps() > 3, 30000);
    w.stop_action()->trigger();
    QVERIFY(done.wait(30000));
    QCOMPARE(done.at(0).at(0).toStringList().size(), 1);
    QCOMPARE(read_run(done.at(0).at(0).toStringList()[0].toStdString()).status, std::string("stopped"));
  }
};

QTEST_MAIN(SweepsTest)
#include "test_sweeps.moc"
