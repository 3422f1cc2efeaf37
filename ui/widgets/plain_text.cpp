#include "ui/widgets/plain_text.h"

#include <QAbstractSeries>
#include <QLabel>
#include <QPainter>
#include <QRegularExpression>
#include <QTextDocument>

namespace mirror::ui {

QString elided_parts(const QString& text, const QString& separator, const QFontMetrics& metrics, int width) {
  if (metrics.horizontalAdvance(text) <= width) return text;
  const QStringList parts = text.split(separator);
  const QString more = separator + QString(QChar(0x2026));
  QString kept = parts.front();
  if (metrics.horizontalAdvance(kept + more) > width) {  // the first part alone, cut and marked as cut
    while (!kept.isEmpty() && metrics.horizontalAdvance(kept + QChar(0x2026)) > width) kept.chop(1);
    return kept + QChar(0x2026);
  }
  for (int i = 1; i < parts.size(); ++i) {
    const QString longer = kept + separator + parts[i];
    if (metrics.horizontalAdvance(longer + more) > width) break;
    kept = longer;
  }
  return kept + more;
}

ElidedLabel::ElidedLabel(const QString& text, Qt::TextElideMode mode) : QLabel(text), mode_(mode) {
  setTextFormat(Qt::PlainText);
}

QSize ElidedLabel::minimumSizeHint() const {
  return {fontMetrics().averageCharWidth() * 8, fontMetrics().height() + contentsMargins().top() + contentsMargins().bottom()};
}

QSize ElidedLabel::sizeHint() const {
  return {QLabel::sizeHint().width(), minimumSizeHint().height()};  // one line, however many the text has
}

QString ElidedLabel::shown() const {
  // One line: a folder or message holding line breaks shows them as spaces (whole in the tooltip).
  QString line = text();
  line.replace(QRegularExpression("[\\r\\n\\x{2028}\\x{2029}]"), " ");
  return fontMetrics().elidedText(line, mode_, contentsRect().width());
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QString drawn = shown();
  const QString tip = drawn == text() ? QString() : literal(text());  // cut short, or a line break made a space
  if (toolTip() != tip) setToolTip(tip);
  p.setPen(palette().color(foregroundRole()));
  p.drawText(contentsRect(), static_cast<int>(alignment() | Qt::AlignVCenter | Qt::TextSingleLine), drawn);
}

QLabel* plain(QLabel* label) {
  label->setTextFormat(Qt::PlainText);
  return label;
}

QLabel* plain_label(const QString& text, bool wrap) {
  auto* label = plain(new QLabel);
  label->setText(text);
  label->setWordWrap(wrap);
  return label;
}

QString literal(const QString& text) {
  return Qt::mightBeRichText(text) ? Qt::convertFromPlainText(text, Qt::WhiteSpaceNormal) : text;
}

void set_legend_name(QAbstractSeries* series, const QString& name) { series->setName(name.toHtmlEscaped()); }

}  // namespace mirror::ui
