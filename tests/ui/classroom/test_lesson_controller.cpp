// The lessons' controller on its own (issue 47, item 2: pages built from a small context and
// tested alone): hosted by a bare QMainWindow with a launcher, a compare view and a banner, no
// MainWindow, it opens a lesson in its dock, trains the lesson's runs as one sweep, judges each
// as the lesson means it, and hands the runs to be compared.
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QSignalSpy>
#include <QtTest>

#include <memory>

#include "mirror/data/registry.h"
#include "mirror/train/config.h"
#include "ui/classroom/lesson_panel.h"
#include "ui/run/live_run.h"
#include "ui/run/run_launcher.h"
#include "ui/run/training_controller.h"
#include "ui/runs/compare_view.h"
#include "ui/window/lesson_controller.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

class LessonControllerTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  void aLessonTrainsAndIsComparedInAHostOfItsOwn() {
    const ScopedRunsFolder runs;  // nothing recorded before: the lesson trains
    QMainWindow window;
    window.resize(1000, 700);
    window.show();
    RunLauncher launcher;
    CompareView compare;
    QLabel banner("an earlier run's failure");
    banner.setVisible(true);
    const TrainConfig base = config_from_preset("spirals-mlp");
    const auto data = load_dataset(base.dataset);
    QStringList compared;
    int live_shown = 0;
    LessonController lessons(LessonHost{&window, &launcher, &compare, &banner, [&base] { return base; },
                                        [&data] { return data; }, [&](const QStringList& d) { compared = d; },
                                        [&] { ++live_shown; }, [] {}});
    // The window's wiring, as MainWindow does it.
    connect(&launcher, &RunLauncher::run_begun, &lessons, [&] { lessons.run_begun(); });
    int meant_failures = 0;
    connect(launcher.live(), &LiveRun::run_finished, &lessons, [&](const RunFinished& e) { meant_failures += lessons.run_ended(e); });
    QSignalSpy swept(&launcher, &RunLauncher::sweep_finished);
    connect(&launcher, &RunLauncher::sweep_finished, &lessons,
            [&](const QStringList& dirs, bool cancelled) { lessons.sweep_ended(dirs, cancelled); });

    QVERIFY(lessons.open("broken-sync", /*max_steps=*/40));
    QVERIFY(lessons.training() && launcher.sweeping());
    QVERIFY(lessons.dock() && window.dockWidgetArea(lessons.dock()) == Qt::RightDockWidgetArea);
    QCOMPARE(lessons.dock()->windowTitle(), QString("Lesson: Broken sync"));
    QVERIFY(banner.isHidden());  // opening a lesson clears what an earlier run said
    QCOMPARE(live_shown, 1);
    QVERIFY(swept.count() > 0 || swept.wait(120000));
    QVERIFY(!lessons.training());
    QCOMPARE(compared.size(), 2);  // both runs, handed to be compared
    QCOMPARE(meant_failures, 1);   // the nudged replica failed the sync check, as the lesson means
    QVERIFY2(lessons.panel()->findChild<QLabel*>("lesson_run_2")->text().contains("as the lesson means"),
             qPrintable(lessons.panel()->findChild<QLabel*>("lesson_run_2")->text()));

    // Opened again, its runs are found recorded: compared at once, nothing trains.
    compared.clear();
    QVERIFY(lessons.open("broken-sync", 40));
    QVERIFY(!lessons.training() && !launcher.sweeping());
    QCOMPARE(compared.size(), 2);
    // Closing the dock takes the banner with it.
    banner.setVisible(true);
    lessons.dock()->close();
    QVERIFY(banner.isHidden());
  }
};

QTEST_MAIN(LessonControllerTest)
#include "test_lesson_controller.moc"
