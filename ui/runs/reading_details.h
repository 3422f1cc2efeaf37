#pragma once
// A paragraph in words a student follows, with the technical figures behind it one click away
// (a "Details" toggle, folded at first). Both are shown as plain text. GUI thread only.

#include <QWidget>

class QLabel;
class QToolButton;

namespace mirror::ui {

class ReadingWithDetails : public QWidget {
  Q_OBJECT
 public:
  explicit ReadingWithDetails(QWidget* parent = nullptr);

  // The paragraph, and the figures behind it; empty `details` hides the toggle.
  void set_text(const QString& text, const QString& details = {});

  QLabel* text() const { return text_; }
  QToolButton* toggle() const { return toggle_; }
  QLabel* details() const { return details_; }

 private:
  QLabel* text_;
  QToolButton* toggle_;
  QLabel* details_;
};

}  // namespace mirror::ui
