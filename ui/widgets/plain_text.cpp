#include "ui/widgets/plain_text.h"

#include <QAbstractSeries>
#include <QLabel>
#include <QTextDocument>

namespace mirror::ui {

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
