#include "ui/window/presentation.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QToolBar>
#include <QWidgetAction>

#include <functional>

namespace mirror::ui {

Presentation::Presentation(QMainWindow* window, QMenu* view, QTabWidget* pages)
    : QObject(window), window_(window), pages_(pages) {
  projector_ = view->addAction("Projector mode (large fonts, thick lines)");
  projector_->setCheckable(true);
  projector_->setShortcut(QKeySequence("Ctrl+Shift+P"));
  presentation_ = view->addAction("Presentation (charts and strategy, large type)");
  presentation_->setCheckable(true);
  presentation_->setShortcut(QKeySequence("F5"));
  presentation_->setToolTip("Only the pages, in projector type: Page Down / Page Up (a clicker) change the page,"
                            " Space steps on the Strategy page, Esc leaves");
  connect(presentation_, &QAction::toggled, this, &Presentation::set_presenting);
  // A presenter's clicker sends Page Down / Page Up; Esc leaves. Active only while presenting.
  next_page_ = new QAction("Next page", window_);
  next_page_->setShortcut(QKeySequence(Qt::Key_PageDown));
  previous_page_ = new QAction("Previous page", window_);
  previous_page_->setShortcut(QKeySequence(Qt::Key_PageUp));
  leave_ = new QAction("Leave presentation", window_);
  leave_->setShortcut(QKeySequence(Qt::Key_Escape));
  for (QAction* a : {next_page_, previous_page_, leave_}) {
    a->setEnabled(false);
    window_->addAction(a);
  }
  connect(next_page_, &QAction::triggered, this, [this] { pages_->setCurrentIndex((pages_->currentIndex() + 1) % pages_->count()); });
  connect(previous_page_, &QAction::triggered, this,
          [this] { pages_->setCurrentIndex((pages_->currentIndex() + pages_->count() - 1) % pages_->count()); });
  connect(leave_, &QAction::triggered, this, [this] { presentation_->setChecked(false); });
  full_screen_ = view->addAction("Full screen");
  full_screen_->setCheckable(true);
  full_screen_->setShortcut(QKeySequence("F11"));
  // Leaving full screen gives back what the window was before (maximised, say).
  connect(full_screen_, &QAction::toggled, this, [this](bool on) {
    window_->setWindowState(on ? window_->windowState() | Qt::WindowFullScreen : window_->windowState() & ~Qt::WindowFullScreen);
  });
}

void Presentation::window_state_changed() {
  const QSignalBlocker quiet(full_screen_);
  full_screen_->setChecked(window_->isFullScreen());
}

void Presentation::hide_bars(bool on) {
  if (on) {
    // Every entry with a shortcut, of every menu and toolbar, held by the window too: hidden bars
    // would take their shortcuts with them (F5 to leave, Ctrl+P to pause).
    std::function<void(const QList<QAction*>&)> hold = [&](const QList<QAction*>& actions) {
      for (QAction* a : actions) {
        if (a->menu()) hold(a->menu()->actions());
        else if (!a->shortcut().isEmpty() && !qobject_cast<QWidgetAction*>(a)) window_->addAction(a);
      }
    };
    hold(window_->menuBar()->actions());
    for (QToolBar* tb : window_->findChildren<QToolBar*>()) {
      hold(tb->actions());
      if (tb->isVisible()) hidden_toolbars_ << tb;
    }
  }
  window_->menuBar()->setVisible(!on);
  for (QToolBar* tb : hidden_toolbars_) tb->setVisible(!on);
  if (!on) hidden_toolbars_.clear();
}

void Presentation::set_presenting(bool on) {
  hide_bars(on);
  if (on) projector_before_ = projector_->isChecked();
  projector_->setChecked(on || projector_before_);
  for (QAction* a : {next_page_, previous_page_, leave_}) a->setEnabled(on);
  Q_EMIT status(on ? "Presentation: Page Down / Page Up change page · Space steps on the Strategy page · "
                     "Ctrl+P pauses · Esc leaves"
                   : "Ready.");
}

}  // namespace mirror::ui
