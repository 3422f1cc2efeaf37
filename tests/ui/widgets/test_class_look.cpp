// Class colours, read by people who do not all see colour alike: the confusion matrix, the
// decision regions and the scatter plots, the class balance. The first distinct_class_colours()
// stay apart under simulated deuteranopia and protanopia by the run palette's measure (ΔE00 >= 10,
// colour_vision.h); a scatter plot's points differ in shape too; the confusion matrix's right and
// wrong cells are a pair colour-blind viewers tell apart; thumbnails keep an image's colours.
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QtTest>

#include "colour_vision.h"
#include "mirror/data/preview.h"
#include "ui/classroom/confusion_matrix.h"
#include "ui/widgets/class_look.h"
#include "ui/widgets/point_plot.h"
#include "ui/widgets/theme.h"

using namespace mirror;
using namespace mirror::ui;
using namespace colour_vision;

namespace {
constexpr double kMinDeltaE = 10;

// The class colours used before: Tableau 10.
const std::vector<QColor> kTableau10 = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
                                        QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
                                        QColor(188, 189, 34),  QColor(23, 190, 207)};

// A plot 700 px wide (points 6 px in radius) of one point of class `label` at its centre, on
// white: the colour 5 px below that centre, inside a circle, below a triangle's base.
QColor colour_below_point(int64_t label) {
  PointPlot plot;
  plot.resize(700, 700);
  QPalette pal = plot.palette();
  pal.setColor(QPalette::Base, Qt::white);
  plot.setPalette(pal);
  plot.set_points({{-1, -1, 0}, {1, 1, 0}, {0, 0, label}});
  QImage image(plot.size(), QImage::Format_ARGB32);
  image.fill(Qt::white);
  plot.render(&image);
  const QPointF c = plot.to_widget(0, 0);
  return image.pixelColor(static_cast<int>(c.x()), static_cast<int>(c.y() + 5));
}
}  // namespace

class ClassLookTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // As many classes as can be kept apart are: every pair of the first distinct_class_colours()
  // at least ΔE00 10 apart for normal, deuteranope and protanope eyes. Tableau 10 was not.
  void classColoursStayApartUnderColourBlindness() {
    const Worst old = least_difference(kTableau10);
    qInfo("old class colours (Tableau 10), worst pair: ΔE00 %.2f (%s)", old.delta_e, qPrintable(old.where));
    QVERIFY2(old.delta_e < kMinDeltaE, "the threshold would not have caught the old colours");
    QVERIFY(distinct_class_colours() >= 10);  // Fashion-MNIST's ten classes, and CIFAR-10's
    std::vector<QColor> colours;
    for (int64_t k = 0; k < distinct_class_colours(); ++k) colours.push_back(class_color(k));
    const Worst now = least_difference(colours);
    qInfo("%lld class colours, worst pair: ΔE00 %.2f (%s)", static_cast<long long>(colours.size()), now.delta_e,
          qPrintable(now.where));
    QVERIFY2(now.delta_e >= kMinDeltaE, qPrintable(QString("ΔE00 %1 for %2").arg(now.delta_e).arg(now.where)));
    // Beyond them the hues come back lighter or darker, never the same colour.
    for (int64_t k = distinct_class_colours(); k < 3 * distinct_class_colours(); ++k)
      QVERIFY(class_color(k) != class_color(k % distinct_class_colours()));
    QCOMPARE(class_color(-1), QColor(Qt::gray));
  }

  // Every class's marker stands out from the plots' background (the palette's Base, under scatter
  // plots and decision regions) by WCAG's 3:1 for graphics, in both themes: by its fill, or where
  // the fill cannot (Okabe-Ito's orange is 2.25:1 on white), by its outline in the theme's text
  // colour, which WCAG counts as the graphic's boundary. Each fill's ratio is printed.
  void classMarkersStandOutFromThePlotInBothThemes() {
    auto* app = qobject_cast<QApplication*>(QCoreApplication::instance());
    QVERIFY(app);
    for (bool dark : {false, true}) {
      apply_theme(*app, dark);
      PointPlot plot;
      const QColor base = plot.palette().color(QPalette::Base), outline = plot.palette().color(QPalette::Text);
      for (int64_t k = 0; k < distinct_class_colours(); ++k) {
        const double fill = contrast(class_color(k), base), edge = contrast(outline, base);
        qInfo("%s theme: class %lld %s on %s: fill %.2f:1, outline %.2f:1", dark ? "dark" : "light",
              static_cast<long long>(k), qPrintable(class_color(k).name()), qPrintable(base.name()), fill, edge);
        QVERIFY2(std::max(fill, edge) >= 3.0, qPrintable(QString("%1 theme: class %2's marker on %3: %4:1")
                                                            .arg(dark ? "dark" : "light").arg(k).arg(base.name())
                                                            .arg(std::max(fill, edge), 0, 'f', 2)));
      }
    }
    apply_theme(*app, false);
  }

  // A plot taller than wide keeps its square at the top, under its heading: centred, it left an
  // empty gap above the points (issue 48, item 10).
  void aTallPlotKeepsItsSquareUnderItsHeading() {
    PointPlot plot;
    plot.resize(300, 700);
    plot.set_points({{-1, -1, 0}, {1, 1, 1}});
    const QPointF top = plot.to_widget(1, 1), bottom = plot.to_widget(-1, -1);  // the highest and lowest points
    QVERIFY2(top.y() < 60 && bottom.y() - top.y() > 150,
             qPrintable(QString("points from y %1 to %2 in a plot 700 px high").arg(top.y()).arg(bottom.y())));
  }

  // Right and wrong cells of the confusion matrix: a pair every viewer tells apart (green and red,
  // used before, are the pair a deuteranope confuses most).
  void rightAndWrongCellsStayApartUnderColourBlindness() {
    const Worst old = least_difference({QColor(46, 160, 67), QColor(214, 39, 40)});
    qInfo("old right/wrong cells: ΔE00 %.2f (%s)", old.delta_e, qPrintable(old.where));
    QVERIFY(old.delta_e < kMinDeltaE);
    const Worst now = least_difference({ConfusionMatrixView::answer_colour(true), ConfusionMatrixView::answer_colour(false)});
    qInfo("right/wrong cells: ΔE00 %.2f (%s)", now.delta_e, qPrintable(now.where));
    QVERIFY2(now.delta_e >= 3 * kMinDeltaE, qPrintable(now.where));
  }

  // A second cue in the scatter plots: the first six classes have six marker shapes, and the plot
  // draws them (5 px below a point's centre a circle is still filled, a triangle's base is above).
  void scatterPointsDifferInShapeToo() {
    for (int64_t a = 0; a < 6; ++a)
      for (int64_t b = a + 1; b < 6; ++b) QVERIFY(class_marker(a) != class_marker(b));
    QCOMPARE(class_marker(6), class_marker(0));
    const auto distance = [](const QColor& a, const QColor& b) {
      return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
    };
    const QColor circle = colour_below_point(0), triangle = colour_below_point(2);
    QVERIFY2(distance(circle, class_color(0)) < distance(circle, Qt::white), qPrintable(circle.name()));
    QVERIFY2(distance(triangle, Qt::white) < distance(triangle, class_color(2)), qPrintable(triangle.name()));
    // Drawn large, no two of the six shapes cover the same pixels.
    std::vector<QImage> drawn;
    for (int64_t k = 0; k < 6; ++k) {
      QImage image(200, 200, QImage::Format_ARGB32);
      image.fill(Qt::white);
      QPainter p(&image);
      p.setPen(Qt::NoPen);
      p.setBrush(Qt::black);
      draw_class_marker(p, QPointF(100, 100), 60, k);
      drawn.push_back(image);
    }
    for (size_t a = 0; a < drawn.size(); ++a)
      for (size_t b = a + 1; b < drawn.size(); ++b) {
        int differ = 0;
        for (int y = 0; y < 200; ++y)
          for (int x = 0; x < 200; ++x) differ += (drawn[a].pixelColor(x, y).red() < 128) != (drawn[b].pixelColor(x, y).red() < 128);
        QVERIFY2(differ > 500, qPrintable(QString("shapes %1 and %2 differ in %3 px").arg(a).arg(b).arg(differ)));
      }
  }

  // Thumbnails keep an image's colours, whatever its size: RGB, RGBA and grey.
  void thumbnailsKeepColours() {
    ExamplePreview p;
    p.shape = {64, 96, 3};
    p.values.assign(64 * 96 * 3, 0.0f);
    for (size_t i = 0; i < p.values.size(); i += 3) p.values[i + 2] = 1.0f;  // blue
    QImage t = example_thumbnail(p, 48).toImage();
    QCOMPARE(t.width(), 48);
    QCOMPARE(t.height(), 32);  // the aspect kept
    QCOMPARE(t.pixelColor(24, 16).name(), QString("#0000ff"));
    p.shape = {8, 8, 4};
    p.values.assign(8 * 8 * 4, 1.0f);
    for (size_t i = 3; i < p.values.size(); i += 4) p.values[i] = 0.0f;  // transparent
    t = example_thumbnail(p, 16).toImage();
    QCOMPARE(t.pixelColor(8, 8).alpha(), 0);
    p.shape = {28, 28, 1};
    p.values.assign(28 * 28, 0.5f);
    t = example_thumbnail(p, 28).toImage();
    QCOMPARE(t.pixelColor(10, 10).red(), t.pixelColor(10, 10).blue());
    QVERIFY(std::abs(t.pixelColor(10, 10).red() - 128) <= 1);
    p.shape = {2};  // a point: no picture
    QVERIFY(example_thumbnail(p, 28).isNull());
  }
};

QTEST_MAIN(ClassLookTest)
#include "test_class_look.moc"
