#pragma once
// A lesson in the window: its text, what was changed for this machine and each of its runs with
// how it went, shown in a dock beside the charts while the runs train and after; and Help →
// Lessons…, which lists the built-in lessons and the teacher's own.

#include <QDialog>
#include <QString>
#include <QWidget>

#include <string>
#include <vector>

#include "mirror/runs/lesson.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTextBrowser;
class QVBoxLayout;

namespace mirror::ui {

class LessonPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LessonPanel(QWidget* parent = nullptr);

  // Shows `lesson`, each run waiting; `notes` say what plan_lesson changed for this machine.
  void show_lesson(const Lesson& lesson, const std::vector<std::string>& notes);
  const Lesson& lesson() const { return lesson_; }
  // Run `index` (0-based): "waiting", "training…", or how it ended. `problem` shows it as an error.
  void set_run_state(size_t index, const QString& state, bool problem = false);
  QString run_state(size_t index) const;
  // What the runs shown are: "Trained just now", "Recorded on 1 Dec 2026, 10:38" ...
  void set_source(const QString& text);
  QString source() const;

  QPushButton* run_button() const { return run_; }

 Q_SIGNALS:
  // "Run the lesson" (again): train its runs now.
  void run_requested();
  // "Show the runs": open them compared on the Runs page.
  void compare_requested();

 private:
  Lesson lesson_;
  QLabel* title_;
  QLabel* text_;
  QLabel* source_;
  QVBoxLayout* runs_layout_;
  std::vector<QLabel*> states_;
  QPushButton* run_;
  QPushButton* compare_;
};

// Help → Lessons…: the lessons (built-in first, then those of the lessons folder), a preview of
// the chosen one's text, and a button to open a lesson file from anywhere.
class LessonsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit LessonsDialog(QWidget* parent = nullptr);
  // The chosen lesson's name, or the path of the file opened; empty when cancelled.
  QString chosen() const { return chosen_; }
  QListWidget* list() const { return list_; }
  // Lesson files of the lessons folder that could not be read, in words (shown in the dialog).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<Lesson> lessons_;
  std::vector<std::string> warnings_;
  QListWidget* list_;
  QTextBrowser* preview_;
  QString chosen_;
};

// The lesson's text as HTML paragraphs (title excluded), for the panel and the dialog's preview.
QString lesson_html(const Lesson& lesson);

}  // namespace mirror::ui
