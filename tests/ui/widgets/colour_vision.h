#pragma once
// How far apart two colours look, to people who do not all see colour alike: the measure the run
// palette (test_run_palette.cpp) and the class colours (test_class_look.cpp) are held to.
//
// Colour vision: Machado, Oliveira and Fernandes (2009), "A Physiologically-based Model for
// Simulation of Color Vision Deficiency", IEEE TVCG 15(6), the matrices for severity 1.0, applied
// to linear sRGB. Difference: CIEDE2000 (Sharma, Wu and Dalal 2005, "The CIEDE2000 Color-Difference
// Formula: Implementation Notes"), on CIELAB under D65.
#include <QColor>
#include <QString>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

namespace colour_vision {

using Vec3 = std::array<double, 3>;
using Mat3 = std::array<Vec3, 3>;

// Machado et al. (2009), severity 1.0.
constexpr Mat3 kProtanopia = {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
constexpr Mat3 kDeuteranopia = {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};

inline double to_linear(double c) { return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); }

inline Vec3 linear_rgb(const QColor& c) { return {to_linear(c.redF()), to_linear(c.greenF()), to_linear(c.blueF())}; }

inline Vec3 simulate(const Vec3& rgb, const Mat3* m) {
  if (!m) return rgb;
  Vec3 out{};
  for (int i = 0; i < 3; ++i)
    out[i] = std::clamp((*m)[i][0] * rgb[0] + (*m)[i][1] * rgb[1] + (*m)[i][2] * rgb[2], 0.0, 1.0);
  return out;
}

// Linear sRGB -> XYZ (D65) -> CIELAB.
inline Vec3 lab(const Vec3& rgb) {
  const double x = 0.4124564 * rgb[0] + 0.3575761 * rgb[1] + 0.1804375 * rgb[2];
  const double y = 0.2126729 * rgb[0] + 0.7151522 * rgb[1] + 0.0721750 * rgb[2];
  const double z = 0.0193339 * rgb[0] + 0.1191920 * rgb[1] + 0.9503041 * rgb[2];
  auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
  const double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
  return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

inline double degrees(double rad) { return rad * 180 / M_PI; }
inline double radians(double deg) { return deg * M_PI / 180; }

// CIEDE2000 with kL = kC = kH = 1, as Sharma et al. write it out.
inline double delta_e_2000(const Vec3& p, const Vec3& q) {
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
inline Worst least_difference(const std::vector<QColor>& colours) {
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

// WCAG 2 relative luminance and contrast ratio (3:1 for graphics, 4.5:1 for text).
inline double luminance(const QColor& c) {
  const Vec3 l = linear_rgb(c);
  return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}
inline double contrast(const QColor& a, const QColor& b) {
  const double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

}  // namespace colour_vision
