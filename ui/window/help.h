#pragma once
// The Help menu's pages: Getting started (the four set-up tabs, training, comparing, in one page)
// and Keyboard (every shortcut of a window, read from its actions, so the list cannot go stale).

#include <QDialog>
#include <QString>
#include <QVector>

namespace mirror::ui {

struct Shortcut {
  QString keys;  // as the platform writes them: "Ctrl+Return", "F11"
  QString what;  // the action's text without mnemonics or dots: "Train", "Full screen"
};

// Every action of `window` (its children included) that has a shortcut, in creation order, and
// each of its QShortcuts (their whatsThis says what they do).
QVector<Shortcut> keyboard_shortcuts(const QWidget* window);

class HelpDialog : public QDialog {
  Q_OBJECT
 public:
  enum class Page { kGettingStarted, kKeyboard };
  // `window` is the one whose shortcuts the Keyboard page lists.
  HelpDialog(Page page, const QWidget* window, QWidget* parent = nullptr);
  // The page as shown (HTML).
  QString html() const { return html_; }

 private:
  QString html_;
};

}  // namespace mirror::ui
