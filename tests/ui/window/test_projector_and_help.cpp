// The window on a projector and its help, on Qt's offscreen platform: projector mode fits a 720p
// screen, grows the charts' text and keeps Train/Pause/Stop visible on both themes, also while
// training; the help pages name every tab and shortcut; F11 is a real full screen.
#include <QAction>
#include <QChart>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegend>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>
#include <QValueAxis>
#include <QScreen>
#include <QtTest>

#include <cmath>

#include "mirror/runs/lesson.h"
#include "ui/live/metric_chart.h"
#include "ui/run/run_metrics.h"
#include "ui/run/training_controller.h"
#include "ui/setup/dataset_panel.h"
#include "ui/window/help.h"
#include "ui/widgets/plain_text.h"
#include "../scoped_runs_folder.h"
#include "ui/setup/setup_tabs.h"
#include "ui/window/lesson_controller.h"
#include "ui/run/run_launcher.h"
#include "ui/live/live_page.h"
#include "ui/window/main_window.h"
#include "../ui_test_helpers.h"

using namespace mirror;
using namespace mirror::ui;

class ProjectorAndHelpTest : public QObject {
  Q_OBJECT

 // The step axis' labels fit side by side within the plot's width, not run together
  // ("10002000 3000" on three narrow charts).
  static void check_step_labels(MetricChart* view, const char* when) {
    auto* x = qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0));
    QVERIFY(x);
    const QFontMetricsF metrics(x->labelsFont());
    const int labels = x->tickType() == QValueAxis::TicksDynamic ? qRound((x->max() - x->min()) / x->tickInterval()) + 1
                                                                 : x->tickCount();
    const double widest = metrics.horizontalAdvance(QString::number(x->max(), 'f', 0));
    const double width = view->chart()->plotArea().width();
    QVERIFY2(labels >= 2 && (labels - 1) * widest <= width,
             qPrintable(QString("%1, %2: %3 step labels up to %4 px wide on a plot %5 px wide")
                            .arg(when, view->chart()->title())
                            .arg(labels)
                            .arg(widest)
                            .arg(width)));
  }

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // The strip's summary gives way by whole parts, never cutting a number in two ("lr 0…"): at every
  // width it is the whole text, or its first parts and "…", or the first part elided alone.
  void theSummaryDropsWholePartsAtAnyWidth() {
    const QString sep = " \u00b7 ";
    const QStringList parts = {"spirals-mlp", "blobs", "adam, lr 0.01", "batch 64", "2 logical cpu devices"};
    const QString text = parts.join(sep);
    const QFontMetrics metrics(QApplication::font());
    for (int width = 20; width <= metrics.horizontalAdvance(text) + 10; width += 3) {
      const QString shown = elided_parts(text, sep, metrics, width);
      const QString where = QString("at %1 px: '%2'").arg(width).arg(shown);
      QVERIFY2(metrics.horizontalAdvance(shown) <= width || width < metrics.horizontalAdvance("\u2026") * 3, qPrintable(where));
      if (shown == text) continue;
      QVERIFY2(shown.endsWith(QChar(0x2026)), qPrintable(where));
      const QStringList kept = shown.left(shown.size() - 1).split(sep);
      if (kept.size() == 1 && !shown.endsWith(sep + QChar(0x2026))) {
        QVERIFY2(parts[0].startsWith(kept[0]), qPrintable(where));  // the first part, elided alone
        continue;
      }
      for (int i = 0; i + 1 < kept.size(); ++i) QVERIFY2(kept[i] == parts[i], qPrintable(where));
      QVERIFY2(kept.back().isEmpty(), qPrintable(where));  // "… · …": nothing after the last whole part
    }
  }

  // A lesson's dock titled in projector type, as its text is (Qt's own title bar kept the size
  // the platform gave docks: ~10 px beside 18 px text on a 720-pixel projector), and back again.
  void theLessonDocksTitleFollowsProjectorType() {
    const ScopedRunsFolder runs;
    // A running application hands its new font to every widget; a test's event loop is not
    // "running" to Qt, so the test hands it on itself, as QApplication::setFont would.
    const auto hand_on_font = [] {
      for (QWidget* widget : QApplication::allWidgets()) {
        QEvent changed(QEvent::ApplicationFontChange);
        QCoreApplication::sendEvent(widget, &changed);
      }
    };
    MainWindow w(false);
    w.resize(1280, 720);
    w.show();
    w.projector_action()->setChecked(true);
    hand_on_font();
    QSignalSpy done(&w, &MainWindow::sweep_finished);
    QVERIFY(w.lessons()->open("broken-sync", 4));
    auto* title = w.lessons()->dock()->findChild<QLabel*>("dock_title");
    QVERIFY(title);
    QCOMPARE(title->text(), QString("Lesson: Broken sync"));
    const auto px = [](const QFont& f) { return QFontInfo(f).pixelSize(); };
    const int projector = px(QApplication::font());
    QVERIFY2(px(title->font()) == projector, qPrintable(QString("title %1 px, text %2 px").arg(px(title->font())).arg(projector)));
    w.projector_action()->setChecked(false);
    hand_on_font();
    QVERIFY2(px(title->font()) == px(QApplication::font()) && px(title->font()) < projector,
             qPrintable(QString("title %1 px, text %2 px").arg(px(title->font())).arg(px(QApplication::font()))));
    QVERIFY(done.count() > 0 || done.wait(120000));
  }

  // Projector mode in a real room: the window lays out on a 1280x720 projector, every chart's text
  // grows with the font (also when the dark theme was on first, which used to keep it small), and
  // Train/Pause/Stop stay visible on both themes.
  void projectorModeFitsA720pScreenAndScalesChartText() {
    MainWindow w(false);
    w.setup()->apply_preset("spirals-mlp");
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const double normal = w.live_page()->chart(Metric::kLoss)->chart()->titleFont().pointSizeF();
    const double normal_axis = w.live_page()->chart(Metric::kLoss)->chart()->axes().front()->labelsFont().pointSizeF();
    w.dark_action()->setChecked(true);
    w.projector_action()->setChecked(true);
    const QSize need = w.minimumSizeHint();
    QVERIFY2(need.width() <= 1280 && need.height() <= 720,
             qPrintable(QString("projector mode needs %1 x %2").arg(need.width()).arg(need.height())));
    auto* chart = w.live_page()->chart(Metric::kLoss)->chart();
    QVERIFY2(chart->titleFont().pointSizeF() >= 1.5 * normal,
             qPrintable(QString("title %1 pt, normal %2 pt").arg(chart->titleFont().pointSizeF()).arg(normal)));
    for (auto* axis : chart->axes()) QVERIFY(axis->labelsFont().pointSizeF() >= 1.5 * normal_axis);
    QCOMPARE(chart->legend()->alignment(), Qt::AlignBottom);
    QVERIFY(!w.live_page()->chart(Metric::kAccuracy)->chart()->legend()->isVisible());  // one legend for the stack
    // The icons differ clearly from the toolbar's background in both themes.
    for (bool dark : {true, false}) {
      w.dark_action()->setChecked(dark);
      const QColor background = w.palette().color(QPalette::Window);
      for (QAction* a : {w.train_action(), w.pause_action(), w.stop_action()}) {
        const QImage icon = a->icon().pixmap(24, 24).toImage();
        double contrast = 0;
        int painted = 0;
        for (int y = 0; y < icon.height(); ++y)
          for (int x = 0; x < icon.width(); ++x) {
            const QColor c = icon.pixelColor(x, y);
            if (c.alpha() < 128) continue;
            ++painted;
            contrast += std::abs(c.lightnessF() - background.lightnessF()) + c.hslSaturationF() / 2;
          }
        QVERIFY2(painted > 50, qPrintable(a->text()));
        QVERIFY2(contrast / painted > 0.25, qPrintable(QString("%1 on %2: %3").arg(a->text(), dark ? "dark" : "light").arg(contrast / painted)));
      }
    }
    // Training: the window still fits (the scaling page's charts, given a minimum height, made the
    // Runs page and so the window 752 pixels high, pushing the status bar off the screen).
    QTRY_VERIFY_WITH_TIMEOUT(w.setup()->dataset_panel()->dataset() != nullptr && w.train_action()->isEnabled(), 30000);
    w.set_pace(50);
    QVERIFY(train_past(w, 2));
    // With a message above them the charts are at their shortest: their labels stay whole ("..."
    // was all a projector showed), with no more ticks on the y axis than its height holds.
    const double roomy = w.live_page()->chart(Metric::kLoss)->chart()->plotArea().height();
    w.error_banner()->setText("Note: a message of two lines, as a run that was resumed past a damaged checkpoint "
                              "shows, which takes room from the charts below it on a 720-pixel screen.");
    w.error_banner()->setVisible(true);
    QTRY_VERIFY_WITH_TIMEOUT(w.live_page()->chart(Metric::kLoss)->chart()->plotArea().height() < roomy, 5000);  // laid out again
    for (Metric m : {Metric::kLoss, Metric::kAccuracy}) {
      MetricChart* view = w.live_page()->chart(m);
      for (QAbstractAxis* axis : view->chart()->axes()) QVERIFY(!axis->truncateLabels());
      auto* y = qobject_cast<QValueAxis*>(view->y_axis());
      QVERIFY(y);
      const double label = QFontMetricsF(y->labelsFont()).height(), plot = view->chart()->plotArea().height();
      const int ticks = y->tickType() == QValueAxis::TicksDynamic ? qRound((y->max() - y->min()) / y->tickInterval()) + 1
                                                                  : y->tickCount();
      QVERIFY2(ticks >= 2 && (ticks - 1) * label <= plot,
               qPrintable(QString("%1 ticks of %2 px labels on a plot %3 px high").arg(ticks).arg(label).arg(plot)));
      check_step_labels(view, "training");
      if (QTest::currentTestFailed()) return;
    }
    w.error_banner()->setVisible(false);
    QVERIFY2(w.minimumSizeHint().height() <= 720 && w.height() <= 720,
             qPrintable(QString("training in projector mode needs %1, the window is %2 high")
                            .arg(w.minimumSizeHint().height())
                            .arg(w.height())));
    w.set_quit_choice([] { return MainWindow::QuitChoice::kStopAndQuit; });
    w.stop_action()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!w.launcher()->running(), 30000);
    // Stopped, projector mode keeps the settings folded (the room still looks at the pages); the
    // strip's button unfolds them, and its summary gives way so that the pages' tabs stay whole;
    // the charts narrow and their step labels still stand apart.
    QVERIFY(!w.setup()->isVisible() && w.setup_strip()->isVisible());
    auto* toggle = w.setup_strip()->findChild<QToolButton*>("setup_toggle");
    QVERIFY(toggle);
    toggle->click();
    QTabBar* pages = w.views()->tabBar();
    const auto tabs_whole = [pages] {
      for (int i = 0; i < pages->count(); ++i)
        if (!pages->rect().contains(pages->tabRect(i))) return false;
      return true;
    };
    QTRY_VERIFY_WITH_TIMEOUT(w.setup()->isVisible() && tabs_whole(), 5000);  // unfolded, and laid out again
    QVERIFY(!w.setup_strip()->findChild<QLabel*>("setup_summary")->isVisible());
    for (int i = 0; i < pages->count(); ++i)
      QVERIFY2(pages->rect().contains(pages->tabRect(i)),
               qPrintable(QString("the %1 tab is drawn at %2..%3 of a %4 px tab bar")
                              .arg(pages->tabText(i)).arg(pages->tabRect(i).left()).arg(pages->tabRect(i).right()).arg(pages->width())));
    for (Metric m : {Metric::kLoss, Metric::kAccuracy}) {
      check_step_labels(w.live_page()->chart(m), "stopped");
      if (QTest::currentTestFailed()) return;
    }
    w.projector_action()->setChecked(false);
    QVERIFY(w.setup()->isVisible() && !w.setup_strip()->isVisible());  // a desk: the settings are there
    QCOMPARE(w.live_page()->chart(Metric::kLoss)->chart()->titleFont().pointSizeF(), normal);
    const QSize normal_need = w.minimumSizeHint();
    QVERIFY2(normal_need.width() <= 1280 && normal_need.height() <= 720,
             qPrintable(QString("normal mode needs %1 x %2").arg(normal_need.width()).arg(normal_need.height())));
  }

  // Help: one getting-started page on the four tabs, training and comparing; a keyboard page listing
  // every shortcut the window has; F11 is a real full screen, projector mode has its own key.
  void helpPagesAndFullScreen() {
    MainWindow w(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QString start = HelpDialog(HelpDialog::Page::kGettingStarted, &w).html();
    for (const char* tab : {"<b>Data</b>", "<b>Model</b>", "<b>Training</b>", "<b>Devices</b>", "<b>Train</b>", "<b>Runs</b>"})
      QVERIFY2(start.contains(tab), tab);
    // The lessons it says are built in are the built-in ones (it said "Four" when there were five).
    int built_in = 0;
    for (const Lesson& l : lessons()) {
      if (l.source != "built-in") continue;
      ++built_in;
      QVERIFY2(start.contains("<i>" + QString::fromStdString(l.title).toHtmlEscaped() + "</i>"), l.title.c_str());
    }
    QVERIFY(built_in >= 5);
    QVERIFY2(start.contains(QStringList{"", "One", "Two", "Three", "Four", "Five", "Six", "Seven"}.value(built_in) + " are built in"),
             qPrintable(start));
    // In projector type each page still fits its screen, Close and all (Getting started was 40
    // lines of large type: taller than a 720-line projector).
    w.projector_action()->setChecked(true);
    for (auto kind : {HelpDialog::Page::kGettingStarted, HelpDialog::Page::kKeyboard}) {
      HelpDialog page(kind, &w, &w);
      page.show();
      QVERIFY(QTest::qWaitForWindowExposed(&page));
      const QRect room = page.screen()->availableGeometry();
      QVERIFY2(page.frameGeometry().width() <= room.width() && page.frameGeometry().height() <= room.height(),
               qPrintable(QString("%1: %2x%3 on a %4x%5 screen").arg(page.windowTitle()).arg(page.frameGeometry().width())
                              .arg(page.frameGeometry().height()).arg(room.width()).arg(room.height())));
    }
    w.projector_action()->setChecked(false);
    const QString keyboard = HelpDialog(HelpDialog::Page::kKeyboard, &w).html();
    int with_keys = 0;
    for (const QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      ++with_keys;
      const QString keys = a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped();
      QVERIFY2(keyboard.contains("<b>" + keys + "</b>"), qPrintable(keys + " " + a->text()));
    }
    QVERIFY(with_keys >= 8);
    const auto shortcuts = keyboard_shortcuts(&w);
    auto what = [&](const QString& keys) {
      for (const auto& s : shortcuts)
        if (s.keys == keys) return s.what;
      return QString();
    };
    QCOMPARE(what("F11"), QString("Full screen"));
    QCOMPARE(what("Ctrl+Shift+P"), QString("Projector mode (large fonts, thick lines)"));
    QCOMPARE(what(QKeySequence("Ctrl+Return").toString(QKeySequence::NativeText)), QString("Train"));
    // F11 makes the window full screen and gives back its state; projector mode is untouched.
    QVERIFY(!w.isFullScreen());
    w.full_screen_action()->trigger();
    QTRY_VERIFY(w.isFullScreen());
    QVERIFY(!w.projector_action()->isChecked());
    w.full_screen_action()->trigger();
    QTRY_VERIFY(!w.isFullScreen());
    // Leaving full screen by other means unchecks the action.
    w.full_screen_action()->trigger();
    QTRY_VERIFY(w.isFullScreen());
    w.showNormal();
    QTRY_VERIFY(!w.full_screen_action()->isChecked());
  }
};

QTEST_MAIN(ProjectorAndHelpTest)
#include "test_projector_and_help.moc"
