// 2-D point sets for classroom demos: spirals, blobs, xor, circles.
#include "mirror/data/synthetic.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <cmath>

#include "mirror/data/dataset.h"
#include "mirror/util/error.h"
#include "mirror/util/rng.h"

namespace mirror {

namespace {
constexpr double kPi = 3.14159265358979323846;

struct Point {
  double x, y;
  int64_t label;
};

// One example of class `label` for the chosen set; noise is Gaussian with std `noise`.
Point draw(const PointSetOptions& o, Rng& rng, int64_t label) {
  const double nx = o.noise * rng.normal(), ny = o.noise * rng.normal();
  if (o.kind == "spirals") {
    // Arm `label` of `classes` interleaved arms, radius growing with the angle.
    const double t = rng.uniform();
    const double angle = 2.0 * kPi * (1.5 * t) + 2.0 * kPi * static_cast<double>(label) / o.classes;
    const double r = 0.1 + 0.9 * t;
    return {r * std::cos(angle) + nx * r, r * std::sin(angle) + ny * r, label};
  }
  if (o.kind == "blobs") {
    // Cluster centres evenly spaced on a circle of radius 1.
    const double a = 2.0 * kPi * static_cast<double>(label) / o.classes;
    return {std::cos(a) + 3.0 * nx, std::sin(a) + 3.0 * ny, label};
  }
  if (o.kind == "xor") {
    // Label 1 in quadrants where x and y differ in sign.
    double x = rng.uniform(-1, 1), y = rng.uniform(-1, 1);
    while ((x * y < 0) != (label == 1)) { x = rng.uniform(-1, 1); y = rng.uniform(-1, 1); }
    return {x + nx, y + ny, label};
  }
  // circles: an inner disc (label 0, radius < 0.5) and a ring (label 1, radius 0.7..1).
  const double a = rng.uniform(0, 2.0 * kPi);
  const double r = label == 0 ? 0.5 * std::sqrt(rng.uniform()) : rng.uniform(0.7, 1.0);
  return {r * std::cos(a) + nx, r * std::sin(a) + ny, label};
}

std::pair<torch::Tensor, torch::Tensor> make_split(const PointSetOptions& o, Rng& rng, int64_t n) {
  auto x = torch::empty({n, 2}, torch::kFloat32);
  auto y = torch::empty({n}, torch::kInt64);
  auto xa = x.accessor<float, 2>();
  auto ya = y.accessor<int64_t, 1>();
  for (int64_t i = 0; i < n; ++i) {
    const Point p = draw(o, rng, static_cast<int64_t>(rng.below(static_cast<uint64_t>(o.classes))));
    xa[i][0] = static_cast<float>(p.x);
    xa[i][1] = static_cast<float>(p.y);
    ya[i] = p.label;
  }
  return {x, y};
}
}  // namespace

std::shared_ptr<const Dataset> make_point_set(const PointSetOptions& options) {
  PointSetOptions o = options;
  if (o.kind != "spirals" && o.kind != "blobs" && o.kind != "xor" && o.kind != "circles")
    throw ConfigError(fmt::format("unknown point set '{}' (choose spirals, blobs, xor or circles)", o.kind));
  if (o.kind == "xor" || o.kind == "circles") o.classes = 2;
  if (o.classes < 2 || o.classes > 100)
    throw ConfigError(fmt::format("{}: classes must be in [2, 100], got {}", o.kind, o.classes));
  if (o.train_size < 1 || o.val_size < 1 || o.train_size > 10'000'000 || o.val_size > 10'000'000)
    throw ConfigError(fmt::format("{}: train/validation sizes must be in [1, 10000000], got {} / {}",
                                  o.kind, o.train_size, o.val_size));
  if (!(o.noise >= 0 && o.noise <= 10))
    throw ConfigError(fmt::format("{}: noise must be in [0, 10], got {}", o.kind, o.noise));
  Rng rng(o.seed, /*stream=*/0x2d);
  auto [x_train, y_train] = make_split(o, rng, o.train_size);
  auto [x_val, y_val] = make_split(o, rng, o.val_size);
  DatasetInfo info;
  info.name = o.kind;
  info.source = fmt::format("synthetic, seed {}", o.seed);
  info.input_shape = {2};
  info.kind = InputKind::kFloat;
  info.num_classes = o.classes;
  for (int64_t c = 0; c < o.classes; ++c) info.class_names.push_back(fmt::format("class {}", c));
  return std::make_shared<const Dataset>(std::move(info), x_train, y_train, x_val, y_val);
}

}  // namespace mirror
