#pragma once
// Text we did not write (a run, model, layer, lesson or class name, an error message quoting a
// file) shown in a widget as its characters, never as markup. Qt guesses: a QLabel, a tooltip or
// QMessageBox's static functions show a string as rich text when it merely looks like HTML (a
// tag anywhere on its first line, or "&lt;"), and a chart's legend always reads series names as
// HTML. Call from the GUI thread.

#include <QFontMetrics>
#include <QLabel>
#include <QString>

class QAbstractSeries;
class QWidget;

namespace mirror::ui {

// A one-line label that gives way when its room is narrow: the text is elided (at the end, or in
// the middle) and whole in its tooltip; drawn as plain text (it may quote folders and messages),
// line breaks as spaces.
// Its minimum width is eight average characters, whatever its text.
class ElidedLabel : public QLabel {
 public:
  explicit ElidedLabel(const QString& text = {}, Qt::TextElideMode mode = Qt::ElideRight);
  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;
  // The text as drawn now (elided to the label's width).
  QString shown() const;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  Qt::TextElideMode mode_;
};

// `text` made of parts joined by `separator` ("a · b · c"), fitted to `width` pixels of `metrics`
// by dropping whole parts from the end ("a · b · …"), so that no number is cut in two ("lr 0…");
// when even the first part and "…" do not fit, that part is cut short and ends in "…". The
// whole text when it fits.
QString elided_parts(const QString& text, const QString& separator, const QFontMetrics& metrics, int width);

// `label`, set to show its text as plain text from now on. Returns it.
QLabel* plain(QLabel* label);
// A new label showing `text` as plain text, word-wrapped when `wrap`.
QLabel* plain_label(const QString& text = {}, bool wrap = false);

// `text` for a place that decides by looking (a tooltip, QMessageBox::warning and its siblings, a
// QLabel left on Qt::AutoText): unchanged where Qt shows it as plain text anyway, else HTML that
// shows exactly its characters (line breaks kept).
QString literal(const QString& text);

// Names `series` `name` in its chart's legend (which reads HTML), shown as its characters. The
// series' name() is then the escaped form: keep `name` where it is needed as text.
void set_legend_name(QAbstractSeries* series, const QString& name);

}  // namespace mirror::ui
