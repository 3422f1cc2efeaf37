#pragma once
// How classes and examples look wherever the window shows them: one colour per class, a class's
// display name, and an image example's thumbnail.

#include <QColor>
#include <QPixmap>
#include <QString>

#include <cstdint>

class QPainter;
class QPointF;

namespace mirror {
struct DatasetInfo;
struct ExamplePreview;
}  // namespace mirror

namespace mirror::ui {

// A colour for class `k`: the first distinct_class_colours() stay apart for colour-blind viewers
// too (deuteranopia, protanopia); beyond them the hues repeat, lighter or darker each round. Seen
// on light and dark backgrounds alike. Gray for a negative k.
QColor class_color(int64_t k);
int64_t distinct_class_colours();
// A second cue where colour alone would mark a class (a scatter plot's points): class k's marker
// shape, one of six (0 circle, 1 square, 2 triangle, 3 diamond, 4 triangle pointing down, 5 star),
// and that shape drawn `radius` around `at` with the painter's pen and brush.
int class_marker(int64_t k);
void draw_class_marker(QPainter& painter, const QPointF& at, double radius, int64_t k);
// "k name" when the dataset names its classes (info may be null), else "k".
QString class_label(const DatasetInfo* info, int64_t k);
// Thumbnail of an image example of any size (Keras layout rows x cols x channels, values in
// [0, 1]): grey for one channel, grey and alpha for two, colour for three (RGB) or four (RGBA),
// fitted into size x size keeping its aspect. A null pixmap for other examples.
QPixmap example_thumbnail(const ExamplePreview& example, int size);

}  // namespace mirror::ui
