// The window in front of a class, on Qt's offscreen platform. Lessons: one opened trains its runs
// in order, reports each (a failure the lesson means shown with its message), opens them compared
// on its x axis, and opens its recorded runs at once the next time; Help → Lessons… lists the
// built-in lessons and the teacher's own. Presenting: the presentation layout driven by keys, any
// view exported as PNG or SVG, and each chart's series toggles.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QLineSeries>
#include <QScatterSeries>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QMenuBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QProgressBar>
#include <QStatusBar>
#include <QtTest>

#include <fstream>

#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/classroom/strategy_view.h"
#include "ui/live/metric_chart.h"
#include "ui/runs/compare_view.h"
#include "ui/setup/dataset_panel.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/setup/setup_tabs.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

class ClassroomTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void aLessonProducesItsRunsReportsThemAndOpensThemCompared() {
    MainWindow w(false);
    w.resize(1400, 900);
    w.show();
    QSignalSpy done(&w, &MainWindow::sweep_finished);
    // Broken sync, each run capped at 40 steps: the nudge after step 25 is caught after step 30.
    QVERIFY(w.lessons()->open("broken-sync", 40));
    QVERIFY(w.lessons()->training());
    QVERIFY(w.lessons()->dock()->isVisible());
    QCOMPARE(w.lessons()->dock()->windowTitle(), QString("Lesson: Broken sync"));
    // Progress is the lesson's, and a run's time left counts to its step limit (it counted to the
    // end of its epochs, and the bar stayed at the last run's share after the lesson ended).
    auto* bar = w.statusBar()->findChild<QProgressBar*>();
    QVERIFY(bar);
    QTRY_VERIFY_WITH_TIMEOUT(w.launcher()->live()->metrics().steps() > 0, 60000);
    QCOMPARE(w.launcher()->live()->total_steps(w.launcher()->live()->started().epochs), int64_t{40});
    QTRY_VERIFY2_WITH_TIMEOUT(bar->format().startsWith("run ") && bar->format().contains(" of 2"), qPrintable(bar->format()), 10000);
    QVERIFY(done.wait(120000));
    QCOMPARE(bar->value(), 100);
    QVERIFY(!w.lessons()->training());
    const QStringList dirs = done.at(0).at(0).toStringList();
    QCOMPARE(dirs.size(), 2);
    const RunRecord in_sync = read_run(dirs[0].toStdString());
    const RunRecord nudged = read_run(dirs[1].toStdString());
    QCOMPARE(in_sync.status, std::string("finished"));
    QCOMPARE(in_sync.steps.size(), size_t{40});
    QCOMPARE(nudged.status, std::string("failed"));
    QCOMPARE(nudged.run["sweep"]["lesson"].get<std::string>(), std::string("broken-sync"));
    QCOMPARE(nudged.meta.name, std::string("replica 1 nudged once after step 25"));
    // The panel says how each went: the failure is the lesson's point, with the check's message.
    LessonPanel* panel = w.lessons()->panel();
    QCOMPARE(panel->run_state(0), QString("finished"));
    QVERIFY2(panel->run_state(1).startsWith("failed, as the lesson means it to: replicas out of sync after step 30: "
                                            "replica 1 differs from replica 0 in 1 of"),
             qPrintable(panel->run_state(1)));
    QVERIFY(panel->source().contains("Trained just now"));
    QVERIFY2(w.error_banner()->text().contains("The run failed, as the lesson means it to:"), qPrintable(w.error_banner()->text()));
    // The Strategy tab holds on the failing check (after step 30, replica 1 differs), not on the
    // last one that passed (after step 20).
    const StepPicture& check = w.strategy_view()->diagram()->picture();
    QCOMPARE(check.sync_step, int64_t{30});
    QVERIFY(check.sync_failed);
    QVERIFY2(w.strategy_view()->explain(StepPhase::kSyncCheck).startsWith("Sync check FAILED after step 30: replica 1's"),
             qPrintable(w.strategy_view()->explain(StepPhase::kSyncCheck)));
    // Opened compared, on the lesson's x axis.
    QCOMPARE(w.views()->currentWidget()->objectName(), QString("runs-page"));
    QCOMPARE(w.compare_view()->runs().size(), size_t{2});
    QCOMPARE(w.compare_view()->x_axis(), XAxis::kStep);

    // The next time (another class), the recorded runs open at once: nothing trains.
    MainWindow again(false);
    again.show();
    QVERIFY(again.lessons()->open("broken-sync", 40));
    QVERIFY(!again.lessons()->training() && !again.launcher()->running());
    QVERIFY2(again.lessons()->panel()->source().contains("recorded on"), qPrintable(again.lessons()->panel()->source()));
    QVERIFY(again.lessons()->panel()->run_state(1).startsWith("failed, as the lesson means it to: replicas out of sync"));
    QTRY_COMPARE_WITH_TIMEOUT(again.compare_view()->runs().size(), size_t{2}, 10000);
    // Run the lesson trains them again, as a new set.
    QSignalSpy again_done(&again, &MainWindow::sweep_finished);
    again.lessons()->panel()->run_button()->click();
    QVERIFY(again.lessons()->training());
    QVERIFY(again_done.wait(120000));
    const QStringList second = again_done.at(0).at(0).toStringList();
    QCOMPARE(second.size(), 2);
    QVERIFY(second[0] != dirs[0]);
    QCOMPARE(recorded_lesson_runs(runs_.path().toStdString(), find_lesson("broken-sync")),
             (std::vector<std::string>{second[0].toStdString(), second[1].toStdString()}));
  }

  void aLessonThatCannotBeOpenedSaysWhy() {
    MainWindow w(false);
    w.show();
    QVERIFY(!w.lessons()->open("no-such-lesson"));
    QVERIFY(w.error_banner()->isVisible());
    QVERIFY2(w.error_banner()->text().contains("no lesson named 'no-such-lesson'"), qPrintable(w.error_banner()->text()));
    QVERIFY(!w.launcher()->running());
    // A teacher's file with a mistake names it.
    const QString bad = runs_.path() + "/typo.json";  // opened by path, not from the lessons folder
    std::ofstream(bad.toStdString()) << R"({"title": "T", "text": ["p"], "runs": [{"label": "a", "preset": "spirals-mlp", "set": {"lr": "fast"}}]})";
    QVERIFY(!w.lessons()->open(bad));
    QVERIFY2(w.error_banner()->text().contains("run 1 (a): Learning rate: 'fast' is not a number"),
             qPrintable(w.error_banner()->text()));
  }

  void theLessonsDialogListsBuiltInAndOwnLessons() {
    std::ofstream((runs_.lessons() + "/mine.json").toStdString())
        << R"({"title": "My lesson", "text": ["p"], "runs": [{"label": "a", "preset": "spirals-mlp"}]})";
    std::ofstream((runs_.lessons() + "/cut.json").toStdString()) << R"({"title": )";
    LessonsDialog dialog;
    QStringList titles;
    for (int i = 0; i < dialog.list()->count(); ++i) titles << dialog.list()->item(i)->text();
    QCOMPARE(titles, (QStringList{"Why isn't 2× devices 2× faster?", "Global vs per-replica batch", "The tutorial's bug",
                                  "Broken sync", "When does the network decide?", "My lesson"}));
    QCOMPARE(dialog.warnings().size(), size_t{1});
    QVERIFY(dialog.findChild<QLabel*>("lesson_warning")->text().contains("cut.json is not valid JSON"));
    dialog.list()->setCurrentRow(5);
    QTest::keyClick(dialog.list(), Qt::Key_Return);
    QCOMPARE(dialog.chosen(), QString("mine"));
  }

  void presentationShowsThePagesOnlyAndIsDrivenByTheKeyboard() {
    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QFont before = QApplication::font();
    QVERIFY(!w.projector_action()->isChecked());
    QTest::keyClick(&w, Qt::Key_F5);
    QVERIFY(w.presentation_action()->isChecked());
    QVERIFY(w.projector_action()->isChecked());  // large type
    QVERIFY(QApplication::font().pointSizeF() > before.pointSizeF());
    QVERIFY(!w.setup()->dataset_panel()->isVisible());    // the settings are gone, the pages fill the window
    QVERIFY(!w.menuBar()->isVisible());           // so are the menus and the toolbar
    QVERIFY(!w.findChild<QToolBar*>("run_toolbar")->isVisible());
    QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier);  // their shortcuts still work: Runs → Show runs
    QCOMPARE(w.views()->currentWidget(), w.views()->findChild<QWidget*>("runs-page"));
    QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);  // Runs → Show live training
    QCOMPARE(w.views()->currentIndex(), 0);
    QTest::keyClick(&w, Qt::Key_PageDown);       // a clicker's "next"
    QCOMPARE(w.views()->currentWidget(), static_cast<QWidget*>(w.strategy_view()));
    QTest::keyClick(&w, Qt::Key_PageDown);
    QTest::keyClick(&w, Qt::Key_PageUp);
    QCOMPARE(w.views()->currentWidget(), static_cast<QWidget*>(w.strategy_view()));
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.presentation_action()->isChecked());
    QVERIFY(!w.projector_action()->isChecked());  // as it was before
    QVERIFY(w.setup()->dataset_panel()->isVisible());
    QVERIFY(w.menuBar()->isVisible() && w.findChild<QToolBar*>("run_toolbar")->isVisible());
    QTest::keyClick(&w, Qt::Key_F5);
    QVERIFY(w.presentation_action()->isChecked() && !w.menuBar()->isVisible());
    QTest::keyClick(&w, Qt::Key_F5);  // F5 again, its View menu hidden: it ends the presentation
    QVERIFY(!w.presentation_action()->isChecked() && w.menuBar()->isVisible());
    QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF());
    QTest::keyClick(&w, Qt::Key_PageDown);         // not presenting: the keys are the widgets' again
    QCOMPARE(w.views()->currentWidget(), static_cast<QWidget*>(w.strategy_view()));
  }

  void anyViewExportsAsPngOrSvg() {
    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    for (QWidget* page : {static_cast<QWidget*>(w.strategy_view()), w.views()->widget(0)}) {
      w.views()->setCurrentWidget(page);
      const QString png = runs_.path() + "/" + page->objectName() + "-view.png";
      const QString svg = runs_.path() + "/" + page->objectName() + "-view.svg";
      QVERIFY(w.export_view(png));
      QVERIFY(w.export_view(svg));
      const QImage image(png);
      QCOMPARE(image.size(), page->size() * page->devicePixelRatioF());
      QFile f(svg);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QByteArray text = f.readAll();
      QVERIFY(text.contains("<svg") && text.contains("Mirror Workbench: "));
    }
    QVERIFY(!w.export_view("/proc/no-such-dir/view.png"));
  }

  void eachChartShowsOrHidesItsRawSmoothedAndEpochSeries() {
    RunMetrics m;
    StepMetrics s;
    for (int i = 1; i <= 40; ++i) {
      s.global_step = i;
      s.epoch = 1 + (i - 1) / 20;
      s.loss = i <= 20 ? 10.0 - 0.1 * i : 1.0;  // the raw line reaches 9.9, the epochs stay low
      m.add_step(s);
    }
    EpochMetrics e;
    e.epoch = 1;
    e.loss = 0.5;
    e.val_loss = 0.4;
    m.add_epoch(e);
    MetricChart chart(Metric::kLoss, "Loss");
    chart.resize(600, 300);
    chart.refresh(m);
    auto* y = qobject_cast<QValueAxis*>(chart.y_axis());
    QVERIFY(y && y->max() >= 9.9);
    chart.set_series_shown(ChartSeries::kRaw, false);
    chart.set_series_shown(ChartSeries::kSmoothed, false);
    QVERIFY(!chart.series_shown(ChartSeries::kRaw) && chart.series_shown(ChartSeries::kEpochs));
    // Only the epoch points left: the axis fits them, not the hidden steps.
    QVERIFY2(y->max() < 2.0, qPrintable(QString::number(y->max())));
    int visible = 0;
    for (QAbstractSeries* series : chart.chart()->series()) visible += series->isVisible();
    QCOMPARE(visible, 2);  // training and validation epochs
    chart.set_series_shown(ChartSeries::kRaw, true);
    QVERIFY(y->max() >= 9.9);
  }

  void theFailureBannerGoesWithItsLessonAndTheLessonSaysWhichRunTrains() {
    MainWindow w(/*restore_settings=*/false);
    w.resize(1200, 800);
    w.show();
    QStringList progress;
    auto* label = w.findChild<QLabel*>("sweep_progress");
    QVERIFY(label);
    connect(w.launcher(), &RunLauncher::run_begun, this, [&] { progress << (label->isHidden() ? QString() : label->text()); });
    QSignalSpy swept(&w, &MainWindow::sweep_finished);
    QVERIFY(w.lessons()->open("broken-sync", /*max_steps=*/40));
    if (!w.lessons()->training()) w.lessons()->start();  // recorded by an earlier run of this test: train again
    QVERIFY(w.lessons()->training());
    QVERIFY(swept.wait(120000));
    QCOMPARE(progress.size(), 2);
    QCOMPARE(progress[0], QString("Run 1 of 2: in sync"));
    QVERIFY2(progress[1].startsWith("Run 2 of 2: replica 1 nudged"), qPrintable(progress[1]));
    QVERIFY(label->isHidden());  // the lesson's runs are done

    QVERIFY2(!w.error_banner()->isHidden(), "the broken-sync run should have failed, as the lesson means");
    QVERIFY(w.error_banner()->text().contains("as the lesson means it to"));
    w.lessons()->dock()->close();
    QVERIFY(w.error_banner()->isHidden());
  }

 private:
  const ScopedRunsFolder runs_{{}, /*own_lessons=*/true};
};

QTEST_MAIN(ClassroomTest)
#include "test_classroom.moc"
