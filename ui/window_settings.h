#pragma once
// What the window remembers between sessions (QSettings): its layout, theme, projector mode,
// the last preset, and the datasets opened recently.

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace mirror::ui {

struct WindowLayout {
  QByteArray geometry;
  QByteArray split;
  bool dark = false;
  bool projector = false;
};

class WindowSettings {
 public:
  WindowLayout layout() const;
  void save_layout(const WindowLayout& layout);
  QString preset(const QString& fallback) const;
  void save_preset(const QString& preset);
  // The demo pace (steps per second, 0: full speed) last used with `preset`.
  double pace(const QString& preset) const;
  void save_pace(const QString& preset, double steps_per_second);
  // Newest first, at most eight: "name" or "name|folder".
  QStringList recent_datasets() const;
  void remember_dataset(const QString& name, const QString& folder);
};

}  // namespace mirror::ui
