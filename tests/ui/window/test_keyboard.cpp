// The window from the keyboard, on Qt's offscreen platform: Space steps the Strategy tab whatever
// has focus on it (the Mode box took Space and opened instead), Help → Keyboard lists every
// shortcut the window has, and the window's shortcuts work with the focus in any panel, the
// Lesson dock's included.
#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "ui/classroom/lesson_panel.h"
#include "ui/classroom/strategy_view.h"
#include "ui/run/training_controller.h"
#include "ui/window/help.h"
#include "ui/setup/setup_tabs.h"
#include "ui/window/lesson_controller.h"
#include "ui/window/main_window.h"
#include "../scoped_runs_folder.h"

using namespace mirror;
using namespace mirror::ui;

namespace {
// Presses `keys` on the focused widget of `w` and returns the title of the modal dialog that
// opened because of it (closed again at once), or "" when none did.
QString dialog_opened_by(QWidget* focus, const QKeySequence& keys) {
  QString title;
  QTimer poll;
  poll.setInterval(20);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (QWidget* modal = QApplication::activeModalWidget()) {
      title = modal->windowTitle();
      if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
    }
  });
  poll.start();  // the dialog's exec() runs inside keySequence: the poll finds and closes it
  QTest::keySequence(focus, keys);
  QTest::qWait(50);
  return title;
}
}  // namespace

class KeyboardTest : public QObject {
  Q_OBJECT

 private:
  const ScopedRunsFolder runs_;

 private Q_SLOTS:
  void initTestCase() { register_event_types(); }

  // Step by step, with the focus on the Mode box (where choosing "Step by step" leaves it): Space
  // takes one step; the box does not open. The same with the focus on the Next button.
  void spaceStepsTheStrategyTabWithFocusOnTheModeBox() {
    MainWindow w(false);
    w.setup()->apply_preset("spirals-mlp");
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.views()->setCurrentWidget(w.strategy_view());
    StrategyView* s = w.strategy_view();
    s->set_mode(StrategyView::Mode::kStepByStep);
    QComboBox* mode = s->mode_choice();
    mode->setFocus();
    QCOMPARE(QApplication::focusWidget(), mode);
    QTest::keyClick(mode, Qt::Key_Space);
    QCOMPARE(s->phase_line()->text(), QString("Taking one step…"));
    QVERIFY(!mode->view()->isVisible());
    QCOMPARE(QApplication::focusWidget(), mode);  // the focus stays; Space went to the page
    QCOMPARE(s->mode(), StrategyView::Mode::kStepByStep);
    s->set_mode(StrategyView::Mode::kStepByStep);  // the line back to its waiting sentence
    s->next_button()->setFocus();
    QTest::keyClick(s->next_button(), Qt::Key_Space);
    QCOMPARE(s->phase_line()->text(), QString("Taking one step…"));
    // Elsewhere Space is the focused widget's own: on the Live page it steps nothing.
    s->set_mode(StrategyView::Mode::kStepByStep);
    const QString waiting = s->phase_line()->text();
    w.views()->setCurrentIndex(0);
    QTest::keyClick(w.views()->tabBar(), Qt::Key_Space);
    QCOMPARE(s->phase_line()->text(), waiting);
    // Choosing the Strategy tab brings the focus along: Space steps at once.
    w.views()->setCurrentWidget(s);
    QVERIFY(s->isAncestorOf(QApplication::focusWidget()) || QApplication::focusWidget() == s);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Space);
    QCOMPARE(s->phase_line()->text(), QString("Taking one step…"));
  }

  // Help → Keyboard lists every shortcut of every action of the window, Space among them.
  void helpKeyboardListsEveryShortcut() {
    MainWindow w(false);
    const QVector<Shortcut> listed = keyboard_shortcuts(&w);
    const QString html = HelpDialog(HelpDialog::Page::kKeyboard, &w).html();
    int actions = 0;
    for (const QAction* a : w.findChildren<QAction*>()) {
      if (a->shortcut().isEmpty()) continue;
      ++actions;
      const QString keys = a->shortcut().toString(QKeySequence::NativeText);
      const bool found = std::any_of(listed.begin(), listed.end(), [&](const Shortcut& s) { return s.keys == keys; });
      QVERIFY2(found, qPrintable(QString("%1 (%2) is not in Help → Keyboard").arg(keys, a->text())));
      QVERIFY2(html.contains(keys.toHtmlEscaped()), qPrintable(keys));
    }
    QVERIFY(actions >= 15);
    QVERIFY(std::any_of(listed.begin(), listed.end(), [](const Shortcut& s) { return s.keys == "Space" && s.what.contains("Next step"); }));
  }

  // The window's shortcuts with the focus in each panel: the settings, a page, the Lesson dock.
  void shortcutsWorkWithTheFocusInAnyPanel() {
    MainWindow w(false);
    w.setup()->apply_preset("spirals-mlp");
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QSignalSpy done(&w, &MainWindow::sweep_finished);
    QVERIFY(w.lessons()->open("broken-sync", 10));
    QVERIFY(done.wait(120000));
    QVERIFY(w.lessons()->dock()->isVisible());
    QList<QWidget*> panels = {w.lessons()->panel()->run_button(), w.strategy_view()->mode_choice()};
    for (QWidget* focus : panels) {
      focus->setFocus();
      QCOMPARE(QApplication::focusWidget(), focus);
      QCOMPARE(dialog_opened_by(focus, QKeySequence("Ctrl+Shift+L")), QString("Lessons"));
      // The offscreen platform gives no window the focus back after a modal dialog (a window manager does).
      w.activateWindow();
      QVERIFY(QTest::qWaitForWindowActive(&w));
      focus->setFocus();
      const bool projector = w.projector_action()->isChecked();
      QTest::keySequence(focus, QKeySequence("Ctrl+Shift+P"));
      QCOMPARE(w.projector_action()->isChecked(), !projector);
    }
    // Floating, the dock is a window of its own: the main window's shortcuts still reach it.
    w.lessons()->dock()->setFloating(true);
    w.lessons()->dock()->activateWindow();
    QTest::qWait(50);
    w.lessons()->panel()->run_button()->setFocus();
    QCOMPARE(dialog_opened_by(w.lessons()->panel()->run_button(), QKeySequence("Ctrl+Shift+L")), QString("Lessons"));
  }
};

QTEST_MAIN(KeyboardTest)
#include "test_keyboard.moc"
