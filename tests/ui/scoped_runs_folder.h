#pragma once
// A test's own runs folder (MIRROR_RUNS_DIR) and, when asked, its own lessons folder
// (MIRROR_LESSONS_DIR), for as long as the object lives. What was set before (ctest gives each
// suite a runs folder) comes back when it goes, so no test leaves them pointing at a deleted folder.

#include <QByteArray>
#include <QDir>
#include <QString>
#include <QTemporaryDir>

#include <utility>

namespace mirror::ui {

class ScopedRunsFolder {
 public:
  // Runs go to `runs`, else to a fresh folder; with `own_lessons`, lessons are read from `lessons`,
  // else from a fresh folder. Folders given are made when missing.
  explicit ScopedRunsFolder(const QString& runs = {}, bool own_lessons = false, const QString& lessons = {})
      : runs_(point("MIRROR_RUNS_DIR", runs, fresh_runs_)) {
    if (own_lessons) lessons_ = point("MIRROR_LESSONS_DIR", lessons, fresh_lessons_);
  }
  ~ScopedRunsFolder() {
    for (int i = count_ - 1; i >= 0; --i) {
      const auto& [name, value] = saved_[i];
      if (value.isNull())
        qunsetenv(name);
      else
        qputenv(name, value);
    }
  }
  ScopedRunsFolder(const ScopedRunsFolder&) = delete;
  ScopedRunsFolder& operator=(const ScopedRunsFolder&) = delete;

  const QString& path() const { return runs_; }
  const QString& lessons() const { return lessons_; }

 private:
  QString point(const char* name, const QString& given, QTemporaryDir& fresh) {
    saved_[count_++] = {name, qEnvironmentVariableIsSet(name) ? qgetenv(name) : QByteArray()};
    const QString dir = given.isEmpty() ? fresh.path() : given;
    QDir().mkpath(dir);
    qputenv(name, dir.toUtf8());
    return dir;
  }

  QTemporaryDir fresh_runs_, fresh_lessons_;
  std::pair<const char*, QByteArray> saved_[2];
  int count_ = 0;
  QString runs_, lessons_;
};

}  // namespace mirror::ui
