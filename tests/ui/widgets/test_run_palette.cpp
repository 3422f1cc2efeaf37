// The run palette and the themes, read by people who do not all see colour alike: the first six
// run colours stay apart under simulated deuteranopia and protanopia, their lines differ in dash
// pattern and marker too, they stand out from the chart in both themes, legend names keep both
// ends, and the themes' text (placeholders included) has WCAG's 4.5:1 contrast. Core-free: built
// from ui/widgets' sources alone.
//
// Colour vision: Machado, Oliveira and Fernandes (2009), "A Physiologically-based Model for
// Simulation of Color Vision Deficiency", IEEE TVCG 15(6), the matrices for severity 1.0, applied
// to linear sRGB. Difference: CIEDE2000 (Sharma, Wu and Dalal 2005, "The CIEDE2000 Color-Difference
// Formula: Implementation Notes"), on CIELAB under D65. Threshold: ΔE00 >= 10. About 2 is a just
// noticeable difference between two patches side by side; lines of a chart are thin, apart and
// read across a room, so we ask for several times that. Tableau's palette, used before, has
// orange and green at ΔE00 1.3 for a protanope and fails this.
#include <QApplication>
#include <QChart>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QPalette>
#include <QtTest>

#include <algorithm>
#include <array>
#include <cmath>

#include "colour_vision.h"
#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/theme.h"

using namespace mirror::ui;
using namespace colour_vision;

namespace {

// `fg` as seen painted over `bg` (a placeholder colour may be translucent).
QColor over(const QColor& fg, const QColor& bg) {
  const double a = fg.alphaF();
  return QColor::fromRgbF(static_cast<float>(fg.redF() * a + bg.redF() * (1 - a)), static_cast<float>(fg.greenF() * a + bg.greenF() * (1 - a)),
                          static_cast<float>(fg.blueF() * a + bg.blueF() * (1 - a)));
}

// The colours a chart of `theme` paints behind its plot (a gradient's every stop).
std::vector<QColor> chart_backgrounds(QChart::ChartTheme theme) {
  QChart chart;
  chart.setTheme(theme);
  std::vector<QColor> out;
  auto add = [&out](const QBrush& brush) {
    if (const QGradient* g = brush.gradient())
      for (const auto& stop : g->stops()) out.push_back(stop.second);
    else if (brush.style() != Qt::NoBrush) out.push_back(brush.color());
  };
  add(chart.backgroundBrush());
  if (chart.isPlotAreaBackgroundVisible()) add(chart.plotAreaBackgroundBrush());
  return out;
}

constexpr size_t kDistinct = 6;  // runs told apart by colour alone; more are told by line and marker too
constexpr double kMinDeltaE = 10;

const std::vector<QColor> kTableau = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
                                      QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};

}  // namespace

class RunPaletteTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The measure itself: Sharma et al.'s first test pairs, and Lab of sRGB white.
  void deltaE2000MatchesPublishedPairs() {
    QVERIFY(std::abs(delta_e_2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) - 2.0425) < 1e-4);
    QVERIFY(std::abs(delta_e_2000({50, 3.1571, -77.2803}, {50, 0, -82.7485}) - 2.8615) < 1e-4);
    QVERIFY(std::abs(delta_e_2000({2.0776, 0.0795, -1.1350}, {0.9033, -0.0636, -0.5514}) - 0.9082) < 1e-4);
    const Vec3 white = lab(linear_rgb(Qt::white));
    QVERIFY(std::abs(white[0] - 100) < 0.01 && std::abs(white[1]) < 0.01 && std::abs(white[2]) < 0.01);
  }

  // The first six run colours of each theme stay at least ΔE00 10 apart for every viewer; the
  // palette used before did not (the measure would have caught it).
  void firstSixRunColoursStayApartUnderColourBlindness() {
    const Worst old = least_difference(kTableau);
    qInfo("old palette (Tableau 10), worst pair: ΔE00 %.2f (%s)", old.delta_e, qPrintable(old.where));
    QVERIFY2(old.delta_e < kMinDeltaE, "the threshold would not have caught the old palette");
    for (bool dark : {false, true}) {
      std::vector<QColor> colours;
      for (size_t i = 0; i < kDistinct; ++i) colours.push_back(palette_colour(i, dark));
      const Worst now = least_difference(colours);
      qInfo("%s theme, worst pair: ΔE00 %.2f (%s)", dark ? "dark" : "light", now.delta_e, qPrintable(now.where));
      QVERIFY2(now.delta_e >= kMinDeltaE, qPrintable(QString("%1 theme: ΔE00 %2 for %3").arg(dark ? "dark" : "light").arg(now.delta_e).arg(now.where)));
    }
  }

  // Colour is not the only cue: the first six runs' lines differ in dash pattern, their markers
  // in shape.
  void firstSixRunsDifferInLineAndMarker() {
    for (size_t i = 0; i < kDistinct; ++i)
      for (size_t j = i + 1; j < kDistinct; ++j) {
        const QPen a = run_pen(i, false, 2), b = run_pen(j, false, 2);
        const bool same_line = a.style() == b.style() && (a.style() != Qt::CustomDashLine || a.dashPattern() == b.dashPattern());
        QVERIFY2(!same_line, qPrintable(QString("runs %1 and %2 have the same line").arg(i).arg(j)));
        QVERIFY2(palette_marker(i) != palette_marker(j), qPrintable(QString("runs %1 and %2 have the same marker").arg(i).arg(j)));
      }
    // The eight colours then repeat with their own lines.
    QCOMPARE(palette_colour(8), palette_colour(0));
    QCOMPARE(run_pen(6, false, 2).style(), Qt::CustomDashLine);
    QVERIFY(run_pen(6, false, 2).dashPattern() != run_pen(5, false, 2).dashPattern());
  }

  // Every run colour stands out from its chart's background by WCAG's 3:1 for graphics, in both themes.
  void runColoursStandOutFromTheChartInBothThemes() {
    for (bool dark : {false, true}) {
      const auto backgrounds = chart_backgrounds(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
      QVERIFY(!backgrounds.empty());
      for (const QColor& bg : backgrounds) qInfo("%s chart background %s", dark ? "dark" : "light", qPrintable(bg.name()));
      for (size_t i = 0; i < 8; ++i)
        for (const QColor& bg : backgrounds) {
          const double ratio = contrast(palette_colour(i, dark), bg);
          QVERIFY2(ratio >= 3.0, qPrintable(QString("%1 theme: run %2 %3 on %4: %5:1").arg(dark ? "dark" : "light").arg(i)
                                                .arg(palette_colour(i, dark).name(), bg.name()).arg(ratio, 0, 'f', 2)));
        }
    }
  }

  // Legend names keep both ends: run folders that differ only in their last characters stay
  // distinct, with at least eight characters on each side of the ellipsis.
  void legendNamesKeepBothEnds() {
    const QStringList names = {"20261203-144512-lesson-broken-sync-in-sync", "20261203-144512-lesson-broken-sync-knocked-out",
                               "20261203-144512-lesson-broken-sync-seeded"};
    QStringList shown;
    for (const QString& n : names) {
      const QString s = elide_middle(n);
      QVERIFY(s.size() <= 28);
      const int cut = s.indexOf(QChar(0x2026));
      QVERIFY(cut >= 8 && s.size() - cut - 1 >= 8);
      QVERIFY(n.startsWith(s.left(cut)) && n.endsWith(s.mid(cut + 1)));
      shown << s;
    }
    shown.removeDuplicates();
    QCOMPARE(shown.size(), 3);
    QCOMPARE(elide_middle("glorot-uniform"), QString("glorot-uniform"));  // short names whole
    QCOMPARE(elide_middle("abcdefghijklmnopqrstuvwxyz", 10, 8), QString("abcdefgh") + QChar(0x2026) + "stuvwxyz");
  }

  // WCAG 2's 4.5:1 for text in both themes: window and view text, buttons, tooltips, selections,
  // links and placeholders (these were near-invisible on the dark theme).
  void themeTextHasWcagContrast() {
    auto* app = qApp;
    const std::tuple<QPalette::ColorRole, QPalette::ColorRole, const char*> pairs[] = {
        {QPalette::WindowText, QPalette::Window, "window text"},  {QPalette::Text, QPalette::Base, "text"},
        {QPalette::Text, QPalette::AlternateBase, "text on alternate rows"},
        {QPalette::ButtonText, QPalette::Button, "button text"}, {QPalette::ToolTipText, QPalette::ToolTipBase, "tooltip"},
        {QPalette::HighlightedText, QPalette::Highlight, "selection"}, {QPalette::PlaceholderText, QPalette::Base, "placeholder"},
        {QPalette::Link, QPalette::Base, "link"}, {QPalette::Link, QPalette::Window, "link on a page"}};
    QStringList failures;
    for (bool dark : {false, true}) {
      apply_theme(*app, dark);
      const QPalette p = QApplication::palette();
      for (auto group : {QPalette::Active, QPalette::Inactive})
        for (const auto& [fg, bg, what] : pairs) {
          const QColor back = p.color(group, bg);
          const double ratio = contrast(over(p.color(group, fg), back), back);
          if (group == QPalette::Active) qInfo("%s theme, %s: %.2f:1", dark ? "dark" : "light", what, ratio);
          if (ratio < 4.5)
            failures << QString("%1 theme (%2), %3: %4 on %5, %6:1").arg(dark ? "dark" : "light").arg(group).arg(what)
                            .arg(p.color(group, fg).name(QColor::HexArgb), back.name()).arg(ratio, 0, 'f', 2);
        }
    }
    // Disabled text too: greyed, but still read (2.9:1 on the dark theme's buttons).
    const std::tuple<QPalette::ColorRole, QPalette::ColorRole, const char*> disabled[] = {
        {QPalette::ButtonText, QPalette::Button, "disabled button text"},
        {QPalette::WindowText, QPalette::Window, "disabled label"},
        {QPalette::Text, QPalette::Base, "disabled field"}};
    for (bool dark : {false, true}) {
      apply_theme(*app, dark);
      const QPalette p = QApplication::palette();
      for (const auto& [fg, bg, what] : disabled) {
        const QColor back = p.color(QPalette::Disabled, bg);
        const double ratio = contrast(over(p.color(QPalette::Disabled, fg), back), back);
        qInfo("%s theme, %s: %.2f:1", dark ? "dark" : "light", what, ratio);
        if (ratio < 4.5)
          failures << QString("%1 theme, %2: %3 on %4, %5:1").arg(dark ? "dark" : "light", what)
                          .arg(p.color(QPalette::Disabled, fg).name(), back.name()).arg(ratio, 0, 'f', 2);
        // and still unlike enabled text
        QVERIFY(p.color(QPalette::Disabled, fg) != p.color(QPalette::Active, fg));
      }
    }
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    apply_theme(*app, false);
  }

  // Projector type is at least 1/40 of the screen's height, on the usual projectors.
  void projectorTypeIsAFortiethOfTheScreen() {
    auto* app = qApp;
    const int normal_px = QFontInfo(QApplication::font()).pixelSize();
    for (int height : {720, 768, 1080, 1200}) {
      apply_font_scale(*app, projector_font_scale(*app, height));
      const int px = QFontInfo(QApplication::font()).pixelSize();
      qInfo("screen %d px tall: projector type %d px (normal %d px; wanted %.1f)", height, px, normal_px, height / 40.0);
      QVERIFY2(px >= height / 40.0, qPrintable(QString("%1 px on a %2 px screen").arg(px).arg(height)));
    }
    apply_font_scale(*app, 1.0);
    QCOMPARE(QFontInfo(QApplication::font()).pixelSize(), normal_px);
  }
};

QTEST_MAIN(RunPaletteTest)
#include "test_run_palette.moc"
