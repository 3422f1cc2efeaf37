// mirror_render_icon: draws the project's SVG icon at the sizes of the hicolor icon theme, a
// build step (the .deb ships the PNGs beside the SVG, for desktops that do not read SVG).
//   mirror_render_icon ICON.svg OUT_DIR SIZE...   writes OUT_DIR/<S>x<S>/apps/<name of ICON>.png
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: mirror_render_icon ICON.svg OUT_DIR SIZE...\n");
    return 2;
  }
  QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
  if (!svg.isValid()) {
    std::fprintf(stderr, "mirror_render_icon: %s is not an SVG image that Qt can read\n", argv[1]);
    return 1;
  }
  const QString name = QFileInfo(QString::fromLocal8Bit(argv[1])).completeBaseName();
  for (int i = 3; i < argc; ++i) {
    const int size = std::atoi(argv[i]);
    if (size < 8 || size > 1024) {
      std::fprintf(stderr, "mirror_render_icon: size '%s' is not between 8 and 1024 pixels\n", argv[i]);
      return 2;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    const QString dir = QString("%1/%2x%2/apps").arg(QString::fromLocal8Bit(argv[2])).arg(size);
    const QString path = dir + "/" + name + ".png";
    if (!QDir().mkpath(dir) || !image.save(path, "PNG")) {
      std::fprintf(stderr, "mirror_render_icon: cannot write %s\n", qPrintable(path));
      return 1;
    }
  }
  return 0;
}
