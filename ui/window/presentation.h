#pragma once
// View → Projector mode, Presentation and Full screen: the window made for a room. Projector mode
// is large type and thick lines (the window redraws itself when its entry toggles); a presentation
// shows the pages only, in projector type (no menu bar or toolbars: every shortcut still works),
// changed with Page Down / Page Up (a presenter's clicker), Esc leaving; full screen is the window's own state, and its entry is checked exactly
// while the window is full screen, however it got there.

#include <QList>
#include <QObject>
#include <QString>

class QAction;
class QMainWindow;
class QMenu;
class QTabWidget;
class QToolBar;
class QWidget;

namespace mirror::ui {

class Presentation : public QObject {
  Q_OBJECT
 public:
  // Adds the three entries to `view`. A presentation pages through `pages` (the window folds its
  // settings away when presentation_action() toggles). Both, and `window`, outlive this object.
  // GUI thread only.
  Presentation(QMainWindow* window, QMenu* view, QTabWidget* pages);

  QAction* projector_action() const { return projector_; }
  QAction* presentation_action() const { return presentation_; }
  QAction* full_screen_action() const { return full_screen_; }
  // For the window's changeEvent, on a window state change: Full screen follows the window.
  void window_state_changed();

 Q_SIGNALS:
  // A line for the status bar: the presentation's keys, or "Ready." when it ends.
  void status(const QString& text);

 private:
  void set_presenting(bool on);
  // The menu bar and toolbars hidden (on) or shown as they were; their actions' shortcuts held by
  // the window so that they still work.
  void hide_bars(bool on);

  QMainWindow* window_;
  QTabWidget* pages_;
  QAction* projector_;
  QAction* presentation_;
  QAction* full_screen_;
  QAction* next_page_;
  QAction* previous_page_;
  QAction* leave_;
  bool projector_before_ = false;  // projector mode as it was before the presentation
  QList<QToolBar*> hidden_toolbars_;  // those the presentation hid
};

}  // namespace mirror::ui
