#include "ui/setup/dataset_guess.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QStringList>

namespace mirror::ui {

namespace {
constexpr int kMaxClassFolders = 100;  // looked into
constexpr int kMaxNamesPerFolder = 300;

// Keras' image_dataset_from_directory formats (ALLOWLIST_FORMATS), matched ignoring case as Keras does.
bool image_suffix(const QString& suffix) {
  static const QStringList kImages = {"bmp", "gif", "jpeg", "jpg", "png"};
  return kImages.contains(suffix.toLower());
}

// "images" or "texts" by what the class folders of `folder` hold; empty when they hold neither.
QString own_data_kind(const QDir& folder) {
  int images = 0, texts = 0;
  const auto classes = folder.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
  for (int k = 0; k < classes.size() && k < kMaxClassFolders; ++k) {
    QDirIterator it(classes[k].absoluteFilePath(), QDir::Files);
    for (int n = 0; n < kMaxNamesPerFolder && it.hasNext(); ++n) {
      const QString suffix = QFileInfo(it.next()).suffix();
      if (image_suffix(suffix)) ++images;
      else if (suffix.compare("txt", Qt::CaseInsensitive) == 0) ++texts;
    }
  }
  if (images > 0 && images >= texts) return "images";
  if (texts > 0) return "texts";
  return {};
}
}  // namespace

DroppedData guess_dropped_data(const QString& path, const QString& current) {
  const QFileInfo f(path);
  const QString file = f.fileName().toLower();
  if (f.isFile() && file.endsWith(".csv")) return {"table", f.absoluteFilePath()};
  DroppedData d;
  d.path = f.isDir() ? f.absoluteFilePath() : f.absolutePath();
  const QDir folder(d.path);
  if (file.startsWith("reuters") || !folder.entryList({"reut2-*.sgm"}, QDir::Files).isEmpty()) d.name = "reuters";
  else if (file.startsWith("imdb")) d.name = "imdb";
  else if (!folder.entryList({"train-images-idx3-ubyte*"}, QDir::Files).isEmpty())
    d.name = current == "mnist" ? "mnist" : "fashion-mnist";
  else if (f.isDir()) d.name = own_data_kind(folder);
  return d;
}

}  // namespace mirror::ui
