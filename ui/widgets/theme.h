#pragma once
// Light and dark palettes, and a projector mode with large fonts for classrooms.

class QApplication;
class QIcon;

namespace mirror::ui {

void apply_theme(QApplication& app, bool dark);
// Scales the application font: 1.0 normal, about 1.6 for a projector.
void apply_font_scale(QApplication& app, double scale);

// Train, Pause and Stop in colours that stand out on light and dark backgrounds alike (the
// style's own media icons are dark grey, nearly invisible in the dark theme). Drawn, not loaded.
enum class MediaIcon { kPlay, kPause, kStop };
QIcon media_icon(MediaIcon kind);

}  // namespace mirror::ui
