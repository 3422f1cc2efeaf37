#include "ui/widgets/theme.h"

#include <QApplication>
#include <QFont>
#include <QFontInfo>
#include <QIcon>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

#include <algorithm>
#include <cmath>

namespace mirror::ui {

void apply_theme(QApplication& app, bool dark) {
  app.setStyle(QStyleFactory::create("Fusion"));
  // Every text at least WCAG's 4.5:1 on what it is drawn on (tests/ui/widgets/test_run_palette.cpp
  // measures it): Qt's defaults leave placeholders half-transparent black (1.15:1 on the dark
  // base: invisible), white on Fusion's selection blue (3.7:1) and links pure blue (1.9:1 on dark).
  if (!dark) {
    QPalette p = app.style()->standardPalette();
    const QColor selection(38, 110, 180), placeholder(110, 110, 110);  // white on it 5.3:1; 5.1:1 on white
    for (auto group : {QPalette::Active, QPalette::Inactive}) {
      p.setColor(group, QPalette::Highlight, selection);
      p.setColor(group, QPalette::HighlightedText, Qt::white);
      p.setColor(group, QPalette::PlaceholderText, placeholder);
    }
    // Disabled text greyed, yet readable (Fusion's was about 1.6:1): 4.8:1 on the buttons.
    for (auto role : {QPalette::Text, QPalette::ButtonText, QPalette::WindowText})
      p.setColor(QPalette::Disabled, role, QColor(105, 105, 105));
    app.setPalette(p);
    return;
  }
  QPalette p;
  const QColor window(37, 37, 38), base(30, 30, 30), text(220, 220, 220), accent(30, 100, 170);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::PlaceholderText, QColor(150, 150, 150));  // 5.6:1 on the base
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, accent);  // white on it 6.1:1
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(110, 175, 255));         // 7.3:1 on the base
  p.setColor(QPalette::LinkVisited, QColor(190, 150, 255));  // 7.1:1
  // Disabled text greyed, yet readable: 5.9:1 on the window (it was 2.9:1 on a button).
  for (auto role : {QPalette::Text, QPalette::ButtonText, QPalette::WindowText})
    p.setColor(QPalette::Disabled, role, QColor(160, 160, 160));
  app.setPalette(p);
}

namespace {
// The application's font before any scaling.
const QFont& base_font(const QApplication& app) {
  static const QFont base = app.font();
  return base;
}
}  // namespace

void apply_font_scale(QApplication& app, double scale) {
  const QFont& base = base_font(app);
  QFont f = base;
  if (base.pointSizeF() > 0) f.setPointSizeF(base.pointSizeF() * scale);
  else f.setPixelSize(static_cast<int>(base.pixelSize() * scale));
  app.setFont(f);
}

double projector_font_scale(const QApplication& app, int screen_height) {
  const double base_px = QFontInfo(base_font(app)).pixelSize();
  if (!(base_px > 0) || screen_height <= 0) return 1.6;
  return std::max(1.6, std::ceil(screen_height / 40.0) / base_px);
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
