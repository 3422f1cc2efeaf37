#include "ui/widgets/class_look.h"

#include <QImage>
#include <QPainter>
#include <QPolygonF>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <numbers>

#include "mirror/data/dataset.h"
#include "mirror/data/preview.h"

namespace mirror::ui {

namespace {
// Twelve class colours that every common colour vision tells apart: each pair at least ΔE00 10
// apart seen normally and under Machado et al.'s (2009) deuteranopia and protanopia
// (tests/ui/widgets/test_class_look.cpp measures it; Tableau 10, used before, had orange and green
// at ΔE00 1.3 for a protanope). The first six are Okabe and Ito's (2008) colour-blind-safe set as
// the run palette orders it (ui/widgets/chart_widgets.cpp): blue, orange, bluish green, reddish
// purple, sky blue, vermillion. The other six were picked one at a time, each the colour farthest
// (least ΔE00 over the three visions) from those before it among sRGB colours of relative
// luminance 0.08-0.5 (neither lost on the light theme's white nor on the dark theme's grey) and
// CIELAB chroma >= 40 (a hue, not a grey): crimson, plum, mint, cornflower, raspberry, violet.
const QColor kClassColours[] = {QColor(0, 114, 178),  QColor(230, 159, 0),  QColor(0, 158, 115),   QColor(204, 121, 167),
                                QColor(86, 180, 233), QColor(213, 94, 0),   QColor(165, 0, 30),    QColor(150, 30, 90),
                                QColor(75, 210, 150), QColor(60, 135, 255), QColor(210, 30, 75),   QColor(75, 15, 240)};
constexpr int64_t kColours = static_cast<int64_t>(std::size(kClassColours));
constexpr int kMarkers = 6;
}  // namespace

int64_t distinct_class_colours() { return kColours; }

QColor class_color(int64_t k) {
  if (k < 0) return Qt::gray;
  const QColor base = kClassColours[static_cast<size_t>(k % kColours)];
  if (k < kColours) return base;
  // Beyond them: the same hues, each round lighter or darker than the last.
  const int round = static_cast<int>(k / kColours);
  return round % 2 ? base.darker(100 + 30 * ((round + 1) / 2)) : base.lighter(100 + 25 * (round / 2));
}

int class_marker(int64_t k) { return k < 0 ? 0 : static_cast<int>(k % kMarkers); }

void draw_class_marker(QPainter& p, const QPointF& at, double radius, int64_t k) {
  const auto polygon = [&](int corners, double turn, bool star) {
    QPolygonF poly;
    const int points = star ? 2 * corners : corners;
    for (int i = 0; i < points; ++i) {
      const double a = turn + 2 * std::numbers::pi * i / points;
      const double r = star && i % 2 ? radius * 0.5 : radius * 1.2;  // as heavy to the eye as the circle
      poly << QPointF(at.x() + r * std::sin(a), at.y() - r * std::cos(a));
    }
    p.drawPolygon(poly);
  };
  switch (class_marker(k)) {
    case 1: p.drawRect(QRectF(at.x() - 0.9 * radius, at.y() - 0.9 * radius, 1.8 * radius, 1.8 * radius)); break;
    case 2: polygon(3, 0, false); break;       // triangle, point up
    case 3: polygon(4, 0, false); break;       // diamond
    case 4: polygon(3, std::numbers::pi, false); break;     // triangle, point down
    case 5: polygon(5, 0, true); break;        // star
    default: p.drawEllipse(at, radius, radius); break;
  }
}

QString class_label(const DatasetInfo* info, int64_t k) {
  const QString number = QString::number(k);
  if (!info || k < 0 || k >= static_cast<int64_t>(info->class_names.size())) return number;
  const QString name = QString::fromStdString(info->class_names[static_cast<size_t>(k)]);
  // A class named by its own number (a table's integer labels) is not said twice: "1", not "1 1".
  if (name.isEmpty() || name == number) return number;
  return QString("%1 %2").arg(number, name);
}

QPixmap example_thumbnail(const ExamplePreview& p, int size) {
  if (p.shape.size() != 3 || size <= 0) return {};
  const int64_t rows = p.shape[0], cols = p.shape[1], ch = p.shape[2];
  if (rows <= 0 || cols <= 0 || ch <= 0 || rows > 8192 || cols > 8192) return {};
  if (static_cast<int64_t>(p.values.size()) < rows * cols * ch) return {};
  // One channel: grey; two: grey and alpha; three: RGB; four: RGBA (Keras' color_mode values).
  const auto byte = [](float v) { return static_cast<int>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f); };
  QImage img(static_cast<int>(cols), static_cast<int>(rows), QImage::Format_ARGB32);
  for (int64_t r = 0; r < rows; ++r) {
    auto* line = reinterpret_cast<QRgb*>(img.scanLine(static_cast<int>(r)));
    for (int64_t c = 0; c < cols; ++c) {
      const float* v = p.values.data() + (r * cols + c) * ch;
      const int red = byte(v[0]);
      const int green = ch >= 3 ? byte(v[1]) : red;
      const int blue = ch >= 3 ? byte(v[2]) : red;
      const int alpha = ch == 2 ? byte(v[1]) : ch >= 4 ? byte(v[3]) : 255;
      line[c] = qRgba(red, green, blue, alpha);
    }
  }
  // Shrinking a large photo needs smoothing to stay recognisable; a small digit keeps its pixels.
  const bool shrink = rows > size || cols > size;
  return QPixmap::fromImage(
      img.scaled(size, size, Qt::KeepAspectRatio, shrink ? Qt::SmoothTransformation : Qt::FastTransformation));
}

}  // namespace mirror::ui
