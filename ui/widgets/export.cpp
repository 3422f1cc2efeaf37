#include "ui/widgets/export.h"

#include <QPainter>
#include <QPixmap>
#include <QString>
#include <QSvgGenerator>
#include <QWidget>

namespace mirror::ui {

bool export_png(QWidget* widget, const QString& path) { return widget->grab().save(path, "PNG"); }

bool export_svg(QWidget* widget, const QString& path, const QString& title) {
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(widget->size());
  svg.setViewBox(widget->rect());
  svg.setTitle(title);
  QPainter painter;
  if (!painter.begin(&svg)) return false;
  widget->render(&painter);
  return painter.end();
}

}  // namespace mirror::ui
