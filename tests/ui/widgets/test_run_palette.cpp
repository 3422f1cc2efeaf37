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

#include "ui/widgets/chart_widgets.h"
#include "ui/widgets/theme.h"

using namespace mirror::ui;

namespace {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;

// Machado et al. (2009), severity 1.0.
constexpr Mat3 kProtanopia = {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
constexpr Mat3 kDeuteranopia = {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};

double to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

Vec3 linear_rgb(const QColor& c) { return {to_linear(c.redF()), to_linear(c.greenF()), to_linear(c.blueF())}; }

Vec3 simulate(const Vec3& rgb, const Mat3* m) {
  if (!m) return rgb;
  Vec3 out{};
  for (int i = 0; i < 3; ++i)
    out[i] = std::clamp((*m)[i][0] * rgb[0] + (*m)[i][1] * rgb[1] + (*m)[i][2] * rgb[2], 0.0, 1.0);
  return out;
}

// Linear sRGB -> XYZ (D65) -> CIELAB.
Vec3 lab(const Vec3& rgb) {
  const double x = 0.4124564 * rgb[0] + 0.3575761 * rgb[1] + 0.1804375 * rgb[2];
  const double y = 0.2126729 * rgb[0] + 0.7151522 * rgb[1] + 0.0721750 * rgb[2];
  const double z = 0.0193339 * rgb[0] + 0.1191920 * rgb[1] + 0.9503041 * rgb[2];
  auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
  const double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

double degrees(double rad) { return rad * 180 / M_PI; }
double radians(double deg) { return deg * M_PI / 180; }

// CIEDE2000 with kL = kC = kH = 1, as Sharma et al. write it out.
double delta_e_2000(const Vec3& p, const Vec3& q) {
  const double c1 = std::hypot(p[1], p[2]), c2 = std::hypot(q[1], q[2]);
  const double c_mean7 = std::pow((c1 + c2) / 2, 7);
  const double g = 0.5 * (1 - std::sqrt(c_mean7 / (c_mean7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * p[1], a2 = (1 + g) * q[1];
  const double cp1 = std::hypot(a1, p[2]), cp2 = std::hypot(a2, q[2]);
  auto hue = [](double b, double a) {
    if (a == 0 && b == 0) return 0.0;
    const double h = degrees(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(p[2], a1), h2 = hue(q[2], a2);
  const double dl = q[0] - p[0], dc = cp2 - cp1;
  double dh = 0;
  if (cp1 * cp2 != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const double d_big_h = 2 * std::sqrt(cp1 * cp2) * std::sin(radians(dh / 2));
  const double l_mean = (p[0] + q[0]) / 2, cp_mean = (cp1 + cp2) / 2;
  double h_mean = h1 + h2;
  if (cp1 * cp2 != 0) {
    if (std::abs(h1 - h2) <= 180) h_mean = (h1 + h2) / 2;
    else h_mean = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
  }
  const double t = 1 - 0.17 * std::cos(radians(h_mean - 30)) + 0.24 * std::cos(radians(2 * h_mean)) +
                   0.32 * std::cos(radians(3 * h_mean + 6)) - 0.20 * std::cos(radians(4 * h_mean - 63));
  const double d_theta = 30 * std::exp(-std::pow((h_mean - 275) / 25, 2));
  const double cp_mean7 = std::pow(cp_mean, 7);
  const double rc = 2 * std::sqrt(cp_mean7 / (cp_mean7 + std::pow(25.0, 7)));
  const double sl = 1 + 0.015 * std::pow(l_mean - 50, 2) / std::sqrt(20 + std::pow(l_mean - 50, 2));
  const double sc = 1 + 0.045 * cp_mean, sh = 1 + 0.015 * cp_mean * t;
  const double rt = -std::sin(radians(2 * d_theta)) * rc;
  return std::sqrt(std::pow(dl / sl, 2) + std::pow(dc / sc, 2) + std::pow(d_big_h / sh, 2) + rt * (dc / sc) * (d_big_h / sh));
}

struct Worst {
  double delta_e = INFINITY;
  QString where;
};

// The least ΔE00 between any two of `colours`, seen normally, by a deuteranope and a protanope.
Worst least_difference(const std::vector<QColor>& colours) {
  Worst worst;
  const std::pair<const Mat3*, const char*> visions[] = {{nullptr, "normal"}, {&kDeuteranopia, "deuteranopia"}, {&kProtanopia, "protanopia"}};
  for (const auto& [matrix, vision] : visions)
    for (size_t i = 0; i < colours.size(); ++i)
      for (size_t j = i + 1; j < colours.size(); ++j) {
        const double d = delta_e_2000(lab(simulate(linear_rgb(colours[i]), matrix)), lab(simulate(linear_rgb(colours[j]), matrix)));
        if (d < worst.delta_e) worst = {d, QString("%1: %2 and %3").arg(vision, colours[i].name(), colours[j].name())};
      }
  return worst;
}

// WCAG 2 relative luminance and contrast ratio.
double luminance(const QColor& c) {
  const Vec3 l = linear_rgb(c);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}
double contrast(const QColor& a, const QColor& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

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
