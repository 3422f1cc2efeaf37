#pragma once
// Light and dark palettes, and a projector mode with large fonts for classrooms.

class QApplication;
class QIcon;

namespace mirror::ui {

void apply_theme(QApplication& app, bool dark);
// Scales the application font (as it was at the first call): 1.0 normal, projector_font_scale
// for a projector.
void apply_font_scale(QApplication& app, double scale);
// Projector mode's scale on a screen `screen_height` pixels tall: 1.6, or more where that leaves
// the type under 1/40 of the screen's height (too small to read from the back of a room).
double projector_font_scale(const QApplication& app, int screen_height);

// Train, Pause and Stop in colours that stand out on light and dark backgrounds alike (the
// style's own media icons are dark grey, nearly invisible in the dark theme). Drawn, not loaded.
enum class MediaIcon { kPlay, kPause, kStop };
QIcon media_icon(MediaIcon kind);

}  // namespace mirror::ui
