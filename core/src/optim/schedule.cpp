#include "mirror/optim/schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

#include "mirror/util/error.h"

namespace mirror {

namespace {
constexpr double kPi = 3.14159265358979323846;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// The schedule's own rate (no warmup, no scaling) at position `t` (steps or epochs, 0-based).
double decayed(const LrSchedule& s, double base, double t) {
  if (s.kind == "constant") return base;
  if (s.kind == "piecewise") {
    for (size_t i = 0; i < s.boundaries.size(); ++i)
      if (t <= s.boundaries[i]) return s.values[i];
    return s.values.back();
  }
  if (s.kind == "exponential") {
    double p = t / s.decay_steps;
    if (s.staircase) p = std::floor(p);
    return base * std::pow(s.decay_rate, p);
  }
  if (s.kind == "inverse-time") {
    double p = t / s.decay_steps;
    if (s.staircase) p = std::floor(p);
    return base / (1.0 + s.decay_rate * p);
  }
  if (s.kind == "polynomial") {
    double steps = s.decay_steps;
    double x = t;
    if (s.cycle) {
      steps = s.decay_steps * std::max(1.0, std::ceil(t / s.decay_steps));
    } else {
      x = std::min(t, s.decay_steps);
    }
    return (base - s.end_learning_rate) * std::pow(1.0 - x / steps, s.power) + s.end_learning_rate;
  }
  if (s.kind == "cosine") {
    const double x = std::min(t, s.decay_steps);
    const double cosine = 0.5 * (1.0 + std::cos(kPi * x / s.decay_steps));
    return base * ((1.0 - s.alpha) * cosine + s.alpha);
  }
  if (s.kind == "cosine-restarts") {
    double fraction = t / s.decay_steps;
    double restart = 0;
    if (s.t_mul == 1.0) {
      restart = std::floor(fraction);
      fraction -= restart;
    } else {
      restart = std::floor(std::log(1.0 - fraction * (1.0 - s.t_mul)) / std::log(s.t_mul));
      const double sum_r = (1.0 - std::pow(s.t_mul, restart)) / (1.0 - s.t_mul);
      fraction = (fraction - sum_r) / std::pow(s.t_mul, restart);
    }
    const double cosine = 0.5 * std::pow(s.m_mul, restart) * (1.0 + std::cos(kPi * fraction));
    return base * ((1.0 - s.alpha) * cosine + s.alpha);
  }
  throw ConfigError(fmt::format("unknown learning-rate schedule '{}'", s.kind));
}

double scale(const LrSchedule& s, int64_t batch) {
  return s.scale_reference_batch > 0 && batch > 0 ? static_cast<double>(batch) / s.scale_reference_batch : 1.0;
}

[[noreturn]] void bad(const std::string& what, const std::string& why) {
  throw ConfigError(fmt::format("{}: {}", what, why));
}

// "kind:key=value,key=value" -> kind and the pairs, in order.
std::pair<std::string, std::vector<std::pair<std::string, std::string>>> split_spec(const std::string& spec,
                                                                                      const std::string& what) {
  const auto colon = spec.find(':');
  std::string head = spec.substr(0, colon);
  std::vector<std::pair<std::string, std::string>> pairs;
  if (colon != std::string::npos) {
    std::stringstream rest(spec.substr(colon + 1));
    std::string item;
    while (std::getline(rest, item, ',')) {
      if (item.empty()) continue;
      const auto eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        bad(what, fmt::format("'{}' is not key=value", item));
      pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    }
  }
  if (head.empty()) bad(what, "give a name first, as in 'cosine:decay_steps=1000'");
  return {head, pairs};
}

double number(const std::string& what, const std::string& key, const std::string& text) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  bad(what, fmt::format("{}={} is not a number", key, text));
}

int whole(const std::string& what, const std::string& key, const std::string& text) {
  const double v = number(what, key, text);
  if (v != std::floor(v) || v < 0 || v > 1e9) bad(what, fmt::format("{}={} is not a whole number >= 0", key, text));
  return static_cast<int>(v);
}

bool flag(const std::string& what, const std::string& key, const std::string& text) {
  if (text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  bad(what, fmt::format("{}={} is not 0/1", key, text));
}

std::vector<double> numbers(const std::string& what, const std::string& key, const std::string& text) {
  std::vector<double> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, '/')) out.push_back(number(what, key, item));
  return out;
}

const std::vector<std::string>& monitors() {
  static const std::vector<std::string> m = {"val_loss", "val_accuracy", "val_top_k_accuracy",
                                             "loss",     "accuracy",     "top_k_accuracy"};
  return m;
}

void check_watch(const MetricWatch& w, const std::string& what) {
  if (std::find(monitors().begin(), monitors().end(), w.monitor) == monitors().end())
    bad(what, fmt::format("cannot watch '{}' (choose val_loss, val_accuracy, val_top_k_accuracy, loss, accuracy or "
                          "top_k_accuracy)",
                          w.monitor));
  if (w.mode != "auto" && w.mode != "min" && w.mode != "max") bad(what, fmt::format("mode={} (choose auto, min or max)", w.mode));
  if (!(w.min_delta >= 0)) bad(what, fmt::format("min_delta={} must be >= 0", w.min_delta));
}

// Applies a watch's own keys; false when `key` is not one of them.
bool watch_key(MetricWatch& w, const std::string& what, const std::string& key, const std::string& value) {
  if (key == "mode") w.mode = value;
  else if (key == "min_delta") w.min_delta = number(what, key, value);
  else return false;
  return true;
}
}  // namespace

const std::vector<std::string>& lr_schedule_kinds() {
  static const std::vector<std::string> k = {"constant", "piecewise", "exponential",    "inverse-time",
                                             "polynomial", "cosine",  "cosine-restarts"};
  return k;
}

double LrSchedule::rate(double base, int64_t step, int epoch, int64_t batch) const {
  const double scaled = base * scale(*this, batch);
  const double factor = kind == "piecewise" ? scale(*this, batch) : 1.0;  // piecewise rates are absolute
  if (step < warmup_steps) {
    const double target = decayed(*this, scaled, 0) * factor;
    const double from = warmup_from * target;
    return from + (target - from) * static_cast<double>(step) / static_cast<double>(warmup_steps);
  }
  const double t = per_epoch ? static_cast<double>(std::max(0, epoch - 1))
                             : static_cast<double>(step - warmup_steps);
  return decayed(*this, scaled, t) * factor;
}

void LrSchedule::validate() const {
  const std::string what = "--lr-schedule " + kind;
  if (std::find(lr_schedule_kinds().begin(), lr_schedule_kinds().end(), kind) == lr_schedule_kinds().end())
    bad("--lr-schedule", fmt::format("unknown schedule '{}' (choose constant, piecewise, exponential, inverse-time, "
                                     "polynomial, cosine or cosine-restarts)",
                                     kind));
  const bool needs_steps = kind != "constant" && kind != "piecewise";
  if (needs_steps && !(decay_steps > 0)) bad(what, "decay_steps must be > 0");
  if ((kind == "exponential" || kind == "inverse-time") && !(decay_rate > 0))
    bad(what, "decay_rate must be > 0");
  if (kind == "piecewise") {
    if (values.size() != boundaries.size() + 1 || values.empty())
      bad(what, fmt::format("needs one more value than boundaries ({} boundaries, {} values)", boundaries.size(),
                            values.size()));
    for (size_t i = 1; i < boundaries.size(); ++i)
      if (!(boundaries[i] > boundaries[i - 1])) bad(what, "boundaries must increase");
    for (double v : values)
      if (!(v > 0)) bad(what, fmt::format("rate {} must be > 0", v));
  }
  if (kind == "polynomial" && !(end_learning_rate >= 0)) bad(what, "end_learning_rate must be >= 0");
  if (!(alpha >= 0 && alpha <= 1)) bad(what, fmt::format("alpha={} must be in [0, 1]", alpha));
  if (kind == "cosine-restarts" && !(t_mul > 0 && m_mul > 0)) bad(what, "t_mul and m_mul must be > 0");
  if (warmup_steps < 0) bad("--warmup-steps", fmt::format("{} must be >= 0", warmup_steps));
  if (!(warmup_from >= 0 && warmup_from <= 1)) bad("warmup_from", fmt::format("{} must be in [0, 1]", warmup_from));
  if (scale_reference_batch < 0) bad("--scale-lr-with-batch", fmt::format("{} must be > 0", scale_reference_batch));
}

std::string LrSchedule::describe(int64_t batch) const {
  std::string out = kind;
  if (kind == "exponential" || kind == "inverse-time")
    out += fmt::format("(decay_steps={}, decay_rate={}{})", decay_steps, decay_rate, staircase ? ", staircase" : "");
  else if (kind == "polynomial")
    out += fmt::format("(decay_steps={}, end={}, power={}{})", decay_steps, end_learning_rate, power, cycle ? ", cycle" : "");
  else if (kind == "cosine")
    out += fmt::format("(decay_steps={}, alpha={})", decay_steps, alpha);
  else if (kind == "cosine-restarts")
    out += fmt::format("(first={}, t_mul={}, m_mul={}, alpha={})", decay_steps, t_mul, m_mul, alpha);
  else if (kind == "piecewise")
    out += fmt::format("({} boundaries)", boundaries.size());
  if (per_epoch && kind != "constant") out += " per epoch";
  if (warmup_steps > 0) out += fmt::format(" after {} warmup steps", warmup_steps);
  if (scale_reference_batch > 0)
    out += batch > 0 ? fmt::format(", scaled x{:.3g} (batch {} / {})", scale(*this, batch), batch, scale_reference_batch)
                     : fmt::format(", scaled by batch / {}", scale_reference_batch);
  return out;
}

LrSchedule parse_lr_schedule(const std::string& spec) {
  const auto [kind, pairs] = split_spec(spec, "--lr-schedule");
  LrSchedule s;
  s.kind = kind;
  const std::string what = "--lr-schedule " + kind;
  for (const auto& [key, value] : pairs) {
    if (key == "decay_steps" || key == "first_decay_steps") s.decay_steps = number(what, key, value);
    else if (key == "decay_rate") s.decay_rate = number(what, key, value);
    else if (key == "staircase") s.staircase = flag(what, key, value);
    else if (key == "boundaries") s.boundaries = numbers(what, key, value);
    else if (key == "values") s.values = numbers(what, key, value);
    else if (key == "end_learning_rate") s.end_learning_rate = number(what, key, value);
    else if (key == "power") s.power = number(what, key, value);
    else if (key == "cycle") s.cycle = flag(what, key, value);
    else if (key == "alpha") s.alpha = number(what, key, value);
    else if (key == "t_mul") s.t_mul = number(what, key, value);
    else if (key == "m_mul") s.m_mul = number(what, key, value);
    else if (key == "per_epoch") s.per_epoch = flag(what, key, value);
    else if (key == "warmup_steps") s.warmup_steps = whole(what, key, value);
    else if (key == "warmup_from") s.warmup_from = number(what, key, value);
    else bad(what, fmt::format("unknown setting '{}'", key));
  }
  s.validate();
  return s;
}

CallbackState::CallbackState() : plateau_best(kNaN), stop_best(kNaN) {}

bool MetricWatch::minimizing() const {
  if (mode == "min") return true;
  if (mode == "max") return false;
  return monitor.find("loss") != std::string::npos;
}

bool MetricWatch::improves(double value, double best) const {
  if (!std::isfinite(value)) return false;
  if (std::isnan(best)) return true;
  // Keras: an improvement beats the best by more than min_delta.
  return minimizing() ? value < best - min_delta : value > best + min_delta;
}

void PlateauOptions::validate() const {
  const std::string what = "--reduce-lr-on-plateau";
  check_watch(watch, what);
  if (!(factor > 0 && factor < 1)) bad(what, fmt::format("factor={} must be in (0, 1)", factor));
  if (patience < 0 || cooldown < 0) bad(what, "patience and cooldown must be >= 0");
  if (!(min_lr >= 0)) bad(what, fmt::format("min_lr={} must be >= 0", min_lr));
}

void EarlyStoppingOptions::validate() const {
  const std::string what = "--early-stopping";
  check_watch(watch, what);
  if (patience < 0 || start_from_epoch < 0) bad(what, "patience and start_from_epoch must be >= 0");
}

void check_plateau_fits(const PlateauOptions& plateau, const LrSchedule& schedule) {
  if (plateau.enabled && schedule.kind != "constant")
    throw ConfigError("--reduce-lr-on-plateau works on a constant rate (with warmup or batch scaling at most); "
                      "drop --lr-schedule or the plateau rule");
}

PlateauOptions parse_plateau(const std::string& spec) {
  const std::string what = "--reduce-lr-on-plateau";
  const auto [monitor, pairs] = split_spec(spec, what);
  PlateauOptions o;
  o.enabled = true;
  o.watch.monitor = monitor;
  o.watch.min_delta = 1e-4;  // Keras' default for ReduceLROnPlateau
  for (const auto& [key, value] : pairs) {
    if (watch_key(o.watch, what, key, value)) continue;
    if (key == "factor") o.factor = number(what, key, value);
    else if (key == "patience") o.patience = whole(what, key, value);
    else if (key == "cooldown") o.cooldown = whole(what, key, value);
    else if (key == "min_lr") o.min_lr = number(what, key, value);
    else bad(what, fmt::format("unknown setting '{}'", key));
  }
  o.validate();
  return o;
}

EarlyStoppingOptions parse_early_stopping(const std::string& spec) {
  const std::string what = "--early-stopping";
  const auto [monitor, pairs] = split_spec(spec, what);
  EarlyStoppingOptions o;
  o.enabled = true;
  o.watch.monitor = monitor;
  for (const auto& [key, value] : pairs) {
    if (watch_key(o.watch, what, key, value)) continue;
    if (key == "patience") o.patience = whole(what, key, value);
    else if (key == "restore_best" || key == "restore_best_weights") o.restore_best = flag(what, key, value);
    else if (key == "start_from_epoch") o.start_from_epoch = whole(what, key, value);
    else bad(what, fmt::format("unknown setting '{}'", key));
  }
  o.validate();
  return o;
}

bool plateau_epoch_end(const PlateauOptions& o, double value, double current_rate, CallbackState& s) {
  if (!o.enabled) return false;
  if (s.plateau_cooldown > 0) {
    --s.plateau_cooldown;
    s.plateau_wait = 0;
  }
  if (o.watch.improves(value, s.plateau_best)) {
    s.plateau_best = value;
    s.plateau_wait = 0;
    return false;
  }
  if (s.plateau_cooldown > 0) return false;
  if (++s.plateau_wait < o.patience) return false;
  if (!(current_rate > o.min_lr)) return false;
  s.plateau_wait = 0;
  const double next = std::max(current_rate * o.factor, o.min_lr);
  s.plateau_scale *= next / current_rate;
  s.plateau_cooldown = o.cooldown;
  return true;
}

bool early_stopping_epoch_end(const EarlyStoppingOptions& o, double value, int epoch, CallbackState& s) {
  if (!o.enabled || epoch <= o.start_from_epoch) return false;
  ++s.stop_wait;
  if (o.watch.improves(value, s.stop_best)) {
    s.stop_best = value;
    s.stop_best_epoch = epoch;
    s.stop_wait = 0;
    return false;
  }
  return s.stop_wait >= std::max(1, o.patience);
}

}  // namespace mirror
