#include "ui/theme.h"

#include <QApplication>
#include <QFont>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace mirror::ui {

void apply_theme(QApplication& app, bool dark) {
  app.setStyle(QStyleFactory::create("Fusion"));
  if (!dark) {
    app.setPalette(app.style()->standardPalette());
    return;
  }
  QPalette p;
  const QColor window(37, 37, 38), base(30, 30, 30), text(220, 220, 220), accent(42, 130, 218);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 120, 120));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 120, 120));
  app.setPalette(p);
}

void apply_font_scale(QApplication& app, double scale) {
  static const QFont base = app.font();
  QFont f = base;
  if (base.pointSizeF() > 0) f.setPointSizeF(base.pointSizeF() * scale);
  else f.setPixelSize(static_cast<int>(base.pixelSize() * scale));
  app.setFont(f);
}

}  // namespace mirror::ui
