#pragma once
// Writing a widget as it looks: PNG (pixels) or SVG (vector, for papers and slides).

class QString;
class QWidget;

namespace mirror::ui {

// False when the file cannot be written.
bool export_png(QWidget* widget, const QString& path);
bool export_svg(QWidget* widget, const QString& path, const QString& title);

}  // namespace mirror::ui
