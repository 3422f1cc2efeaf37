#pragma once
// Light and dark palettes, and a projector mode with large fonts for classrooms.

class QApplication;

namespace mirror::ui {

void apply_theme(QApplication& app, bool dark);
// Scales the application font: 1.0 normal, about 1.6 for a projector.
void apply_font_scale(QApplication& app, double scale);

}  // namespace mirror::ui
