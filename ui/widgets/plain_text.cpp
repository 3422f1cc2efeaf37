#include "ui/widgets/plain_text.h"

#include <QAbstractSeries>
#include <QLabel>
#include <QPainter>
#include <QTextDocument>

namespace mirror::ui {

ElidedLabel::ElidedLabel(const QString& text, Qt::TextElideMode mode) : QLabel(text), mode_(mode) {
  setTextFormat(Qt::PlainText);
}

QSize ElidedLabel::minimumSizeHint() const {
  return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()};
}

QString ElidedLabel::shown() const { return fontMetrics().elidedText(text(), mode_, contentsRect().width()); }

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QString drawn = shown();
  const QString tip = drawn == text() ? QString() : literal(text());
  if (toolTip() != tip) setToolTip(tip);
  p.setPen(palette().color(foregroundRole()));
  p.drawText(contentsRect(), static_cast<int>(alignment() | Qt::AlignVCenter), drawn);
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
