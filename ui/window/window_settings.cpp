#include "ui/window/window_settings.h"

#include <QSettings>

namespace mirror::ui {

WindowLayout WindowSettings::layout() const {
  QSettings s;
  return {s.value("geometry").toByteArray(), s.value("split").toByteArray(), s.value("dark", false).toBool(),
          s.value("projector", false).toBool()};
}

void WindowSettings::save_layout(const WindowLayout& layout) {
  QSettings s;
  s.setValue("geometry", layout.geometry);
  s.setValue("split", layout.split);
  s.setValue("dark", layout.dark);
  s.setValue("projector", layout.projector);
}

QString WindowSettings::preset(const QString& fallback) const { return QSettings().value("preset", fallback).toString(); }

void WindowSettings::save_preset(const QString& preset) { QSettings().setValue("preset", preset); }

double WindowSettings::pace(const QString& preset) const { return QSettings().value("pace/" + preset, 0.0).toDouble(); }

void WindowSettings::save_pace(const QString& preset, double steps_per_second) {
  QSettings().setValue("pace/" + preset, steps_per_second);
}

QStringList WindowSettings::recent_datasets() const { return QSettings().value("recent_datasets").toStringList(); }

void WindowSettings::remember_dataset(const QString& name, const QString& folder) {
  const QString entry = name + (folder.isEmpty() ? "" : "|" + folder);
  QStringList recent = recent_datasets();
  recent.removeAll(entry);
  recent.prepend(entry);
  while (recent.size() > 8) recent.removeLast();
  QSettings().setValue("recent_datasets", recent);
}

QString WindowSettings::last_run() const { return QSettings().value("last_run").toString(); }

void WindowSettings::save_last_run(const QString& dir) {
  QSettings s;
  if (dir.isEmpty()) s.remove("last_run");
  else s.setValue("last_run", dir);
}

}  // namespace mirror::ui
