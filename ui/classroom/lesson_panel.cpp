// Tested by tests/ui/classroom/test_classroom.cpp.
#include "ui/classroom/lesson_panel.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "ui/widgets/plain_text.h"

namespace mirror::ui {

QString lesson_html(const Lesson& lesson) {
  QString html;
  for (const auto& p : lesson.text) html += "<p>" + QString::fromStdString(p).toHtmlEscaped() + "</p>";
  return html;
}

LessonPanel::LessonPanel(QWidget* parent) : QWidget(parent) {
  // Everything but the buttons scrolls, so a long lesson in projector type never makes the window
  // taller than a 720-pixel screen.
  auto* outer = new QVBoxLayout(this);
  auto* scroll = new QScrollArea;
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(0, 0, 0, 0);
  scroll->setWidget(content);
  outer->addWidget(scroll, 1);
  title_ = new QLabel;
  title_->setObjectName("lesson_title");
  title_->setWordWrap(true);
  title_->setTextFormat(Qt::RichText);  // a heading: it grows with the application font (projector mode)
  layout->addWidget(title_);
  text_ = new QLabel;
  text_->setObjectName("lesson_text");
  text_->setWordWrap(true);
  text_->setTextFormat(Qt::RichText);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(text_);
  auto* runs_title = new QLabel("<b>Runs</b>");
  layout->addWidget(runs_title);
  runs_layout_ = new QVBoxLayout;
  layout->addLayout(runs_layout_);
  source_ = plain(new QLabel);
  source_->setObjectName("lesson_source");
  source_->setWordWrap(true);
  layout->addWidget(source_);
  // One above the other: the dock is a side column, and side by side in projector type the two
  // buttons made it (and the window) wider than a 1280-pixel screen.
  auto* buttons = new QVBoxLayout;
  run_ = new QPushButton("Run the lesson");
  run_->setObjectName("lesson_run");
  run_->setToolTip("Train the lesson's runs now, one after another, then compare them");
  compare_ = new QPushButton("Show the runs");
  compare_->setObjectName("lesson_compare");
  compare_->setToolTip("Open the lesson's runs compared on the Runs page");
  buttons->addWidget(run_);
  buttons->addWidget(compare_);
  layout->addStretch(1);
  outer->addLayout(buttons);
  connect(run_, &QPushButton::clicked, this, &LessonPanel::run_requested);
  connect(compare_, &QPushButton::clicked, this, &LessonPanel::compare_requested);
}

void LessonPanel::show_lesson(const Lesson& lesson, const std::vector<std::string>& notes) {
  lesson_ = lesson;
  title_->setText("<h3>" + QString::fromStdString(lesson.title).toHtmlEscaped() + "</h3>");
  QString html = lesson_html(lesson);
  for (const auto& n : notes) html += "<p><i>On this machine: " + QString::fromStdString(n).toHtmlEscaped() + "</i></p>";
  text_->setText(html);
  for (QLabel* l : states_) delete l;
  states_.clear();
  for (size_t i = 0; i < lesson.runs.size(); ++i) {
    auto* row = new QLabel;
    row->setTextFormat(Qt::RichText);  // set_run_state escapes the label and the message
    row->setObjectName(QString("lesson_run_%1").arg(i + 1));
    row->setWordWrap(true);
    row->setTextInteractionFlags(Qt::TextSelectableByMouse);  // a teacher may copy an error message
    runs_layout_->addWidget(row);
    states_.push_back(row);
    set_run_state(i, "waiting");
  }
  source_->clear();
  compare_->setEnabled(false);
}

void LessonPanel::set_run_state(size_t index, const QString& state, bool problem) {
  if (index >= states_.size()) return;
  states_[index]->setProperty("state", state);
  const QString label = QString::fromStdString(lesson_.runs[index].label).toHtmlEscaped();
  const QString text = state.toHtmlEscaped();
  states_[index]->setText(QString("%1. <b>%2</b>: %3")
                              .arg(index + 1)
                              .arg(label, problem ? "<span style='color:#c0392b'>" + text + "</span>" : text));
}

QString LessonPanel::run_state(size_t index) const {
  return index < states_.size() ? states_[index]->property("state").toString() : QString();
}

void LessonPanel::set_source(const QString& text) {
  source_->setText(text);
  compare_->setEnabled(!text.isEmpty());
}

QString LessonPanel::source() const { return source_->text(); }

LessonsDialog::LessonsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Lessons");
  lessons_ = lessons(&warnings_);
  auto* layout = new QVBoxLayout(this);
  auto* intro = plain_label(QString("Each lesson trains a few runs one after another and opens them compared, with "
                                    "its text beside the charts. Your own lessons are JSON files in %1.")
                                .arg(QString::fromStdString(lessons_dir())),
                            /*wrap=*/true);
  layout->addWidget(intro);
  auto* split = new QSplitter;
  list_ = new QListWidget;
  list_->setObjectName("lessons");
  for (const auto& l : lessons_) {
    auto* item = new QListWidgetItem(QString::fromStdString(l.title));
    item->setData(Qt::UserRole, QString::fromStdString(l.name));
    item->setToolTip(literal(l.source == "built-in" ? QString("Built in (%1)").arg(QString::fromStdString(l.name))
                                                    : QString::fromStdString(l.source)));
    list_->addItem(item);
  }
  preview_ = new QTextBrowser;
  split->addWidget(list_);
  split->addWidget(preview_);
  split->setStretchFactor(1, 2);
  layout->addWidget(split, 1);
  for (const auto& w : warnings_) {
    auto* skipped = plain_label("Not listed: " + QString::fromStdString(w), /*wrap=*/true);
    skipped->setObjectName("lesson_warning");
    layout->addWidget(skipped);
  }
  auto* box = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
  auto* file = box->addButton("Open a lesson file…", QDialogButtonBox::ActionRole);
  layout->addWidget(box);
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0 || row >= static_cast<int>(lessons_.size())) return preview_->clear();
    const Lesson& l = lessons_[static_cast<size_t>(row)];
    QString runs;
    for (const auto& r : l.runs) runs += "<li>" + QString::fromStdString(r.label).toHtmlEscaped() + "</li>";
    preview_->setHtml("<h3>" + QString::fromStdString(l.title).toHtmlEscaped() + "</h3>" + lesson_html(l) +
                      "<p><b>Runs</b></p><ol>" + runs + "</ol>");
  });
  connect(list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    chosen_ = item->data(Qt::UserRole).toString();
    accept();
  });
  connect(box, &QDialogButtonBox::accepted, this, [this] {
    if (!list_->currentItem()) return;
    chosen_ = list_->currentItem()->data(Qt::UserRole).toString();
    accept();
  });
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(file, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, "Open a lesson", QString::fromStdString(lessons_dir()),
                                                      "Lessons (*.json)");
    if (path.isEmpty()) return;
    chosen_ = path;
    accept();
  });
  if (list_->count() > 0) list_->setCurrentRow(0);
  resize(820, 480);
}

}  // namespace mirror::ui
