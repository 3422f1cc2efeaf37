#include "ui/widgets/class_look.h"

#include <QImage>

#include <algorithm>
#include <array>

#include "mirror/data/dataset.h"
#include "mirror/data/preview.h"

namespace mirror::ui {

QColor class_color(int64_t k) {
  // Ten hues that stay apart for most colour-blind viewers too (the widely used "tab10" set).
  static const std::array<QColor, 10> kColors = {
      QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34),  QColor(23, 190, 207)};
  if (k < 0) return Qt::gray;
  const QColor base = kColors[static_cast<size_t>(k % 10)];
  if (k < 10) return base;
  // Beyond ten: the same hues, each round lighter or darker than the last.
  const int round = static_cast<int>(k / 10);
  return round % 2 ? base.darker(100 + 30 * ((round + 1) / 2)) : base.lighter(100 + 25 * (round / 2));
}

QString class_label(const DatasetInfo* info, int64_t k) {
  if (info && k >= 0 && k < static_cast<int64_t>(info->class_names.size()) && !info->class_names[static_cast<size_t>(k)].empty())
    return QString("%1 %2").arg(k).arg(QString::fromStdString(info->class_names[static_cast<size_t>(k)]));
  return QString::number(k);
}

QPixmap example_thumbnail(const ExamplePreview& p, int size) {
  if (p.shape.size() != 3) return {};
  const int rows = static_cast<int>(p.shape[0]), cols = static_cast<int>(p.shape[1]), ch = static_cast<int>(p.shape[2]);
  if (static_cast<int64_t>(p.values.size()) < static_cast<int64_t>(rows) * cols * ch) return {};
  QImage img(cols, rows, QImage::Format_Grayscale8);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float v = p.values[static_cast<size_t>((r * cols + c) * ch)];
      img.scanLine(r)[c] = static_cast<uchar>(std::clamp(v, 0.0f, 1.0f) * 255.0f);
    }
  return QPixmap::fromImage(img.scaled(size, size, Qt::KeepAspectRatio, Qt::FastTransformation));
}

}  // namespace mirror::ui
