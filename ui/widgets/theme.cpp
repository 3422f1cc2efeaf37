#include "ui/widgets/theme.h"

#include <QApplication>
#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
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

QIcon media_icon(MediaIcon kind) {
  QIcon icon;
  for (int size : {16, 24, 32, 48}) {
    QPixmap pm(size, size);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    const double m = size * 0.15, w = size - 2 * m;
    switch (kind) {
      case MediaIcon::kPlay: {
        QPainterPath tri;
        tri.moveTo(m, m);
        tri.lineTo(m + w, size / 2.0);
        tri.lineTo(m, m + w);
        tri.closeSubpath();
        p.fillPath(tri, QColor(46, 170, 80));  // green
        break;
      }
      case MediaIcon::kPause:
        p.setBrush(QColor(230, 150, 20));  // amber
        p.drawRoundedRect(QRectF(m, m, w * 0.36, w), 1.5, 1.5);
        p.drawRoundedRect(QRectF(m + w * 0.64, m, w * 0.36, w), 1.5, 1.5);
        break;
      case MediaIcon::kStop:
        p.setBrush(QColor(215, 60, 50));  // red
        p.drawRoundedRect(QRectF(m, m, w, w), 2, 2);
        break;
    }
    icon.addPixmap(pm);
  }
  return icon;
}

}  // namespace mirror::ui
