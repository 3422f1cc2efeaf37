#pragma once
// What the window remembers between sessions (QSettings): its layout, theme, projector mode,
// the last preset, the datasets opened recently, and the run it was training when it closed.

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
  // The run the window was training when it was last closed or killed (stopped or cut short);
  // empty when its last run ended on its own. An empty `dir` forgets it.
  QString last_run() const;
  void save_last_run(const QString& dir);
};

}  // namespace mirror::ui
