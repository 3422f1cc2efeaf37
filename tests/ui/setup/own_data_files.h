#pragma once
// Own-data files for the ui tests, made by the test itself: class folders of images, texts or
// shapes, a file written whole, and a path dropped on the Data tab as a file manager drops it.
#include <QApplication>
#include <QColor>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>
#include <QRandomGenerator>
#include <QtTest>

#include "ui/setup/dataset_panel.h"

namespace mirror::ui::testing {

inline void write_file(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
  f.write(bytes);
}

// `per_class` small PNGs in each of cats/ and dogs/ under `root`: dark cats, light dogs.
inline void make_image_folder(const QString& root, int per_class) {
  for (const QString& cls : {QString("cats"), QString("dogs")}) {
    QVERIFY(QDir().mkpath(root + "/" + cls));
    for (int i = 0; i < per_class; ++i) {
      QImage img(12, 10, QImage::Format_RGB32);
      img.fill(cls == "cats" ? QColor(40, 20 + i, 30) : QColor(220, 200, 180 + i));
      QVERIFY(img.save(QString("%1/%2/%3.png").arg(root, cls).arg(i), "PNG"));
    }
  }
}

// `per_class` .txt files in each of neg/ and pos/ under `root`.
inline void make_text_folder(const QString& root, int per_class) {
  for (const QString& cls : {QString("neg"), QString("pos")}) {
    QVERIFY(QDir().mkpath(root + "/" + cls));
    for (int i = 0; i < per_class; ++i)
      write_file(QString("%1/%2/%3.txt").arg(root, cls).arg(i),
                 cls == "neg" ? QByteArray("a dull and slow film, sadly") : QByteArray("a bright, quick and happy film!"));
  }
}

// Drops `path` on `panel` as a file manager would: the drag enters (and is accepted), then drops.
inline void drop_on(DatasetPanel& panel, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  panel.show();
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&panel, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&panel, &drop);
  QVERIFY(drop.isAccepted());
}

// `per_class` coloured shapes of 40×40 in circle/, square/ and triangle/ under `root`: a random
// colour, size and place each, on a random light background.
inline void make_shape_folder(const QString& root, int per_class) {
  QRandomGenerator rng(7);
  const QStringList shapes = {"circle", "square", "triangle"};
  for (const QString& shape : shapes) {
    QVERIFY(QDir().mkpath(root + "/" + shape));
    for (int i = 0; i < per_class; ++i) {
      QImage img(40, 40, QImage::Format_RGB32);
      img.fill(QColor(rng.bounded(170, 256), rng.bounded(170, 256), rng.bounded(170, 256)));
      QPainter p(&img);
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(rng.bounded(0, 160), rng.bounded(0, 160), rng.bounded(0, 160)));
      const double r = rng.bounded(7.0) + 7, cx = r + rng.bounded(40 - 2 * r), cy = r + rng.bounded(40 - 2 * r);
      if (shape == "circle") {
        p.drawEllipse(QPointF(cx, cy), r, r);
      } else if (shape == "square") {
        p.drawRect(QRectF(cx - r * 0.85, cy - r * 0.85, r * 1.7, r * 1.7));
      } else {
        QPainterPath t;
        t.moveTo(cx, cy - r);
        t.lineTo(cx + r, cy + r * 0.8);
        t.lineTo(cx - r, cy + r * 0.8);
        t.closeSubpath();
        p.drawPath(t);
      }
      p.end();
      QVERIFY(img.save(QString("%1/%2/%2_%3.png").arg(root, shape).arg(i, 3, 10, QChar('0')), "PNG"));
    }
  }
}

// Waits until `panel` has read what it was given (60 s at most).
inline void wait_loaded(DatasetPanel& panel) { QTRY_VERIFY_WITH_TIMEOUT(!panel.loading(), 60000); }

}  // namespace mirror::ui::testing
