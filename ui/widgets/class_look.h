#pragma once
// How classes and examples look wherever the window shows them: one colour per class, a class's
// display name, and an image example's thumbnail.

#include <QColor>
#include <QPixmap>
#include <QString>

#include <cstdint>

namespace mirror {
struct DatasetInfo;
struct ExamplePreview;
}  // namespace mirror

namespace mirror::ui {

// A colour for class `k`, distinct for the first ten and still told apart beyond them; readable
// on light and dark backgrounds.
QColor class_color(int64_t k);
// "k name" when the dataset names its classes (info may be null), else "k".
QString class_label(const DatasetInfo* info, int64_t k);
// Greyscale thumbnail of an image example (Keras layout rows x cols x channels, values in [0, 1]);
// a null pixmap for other examples.
QPixmap example_thumbnail(const ExamplePreview& example, int size);

}  // namespace mirror::ui
