// Schedules, plateau rules and early stopping written back in the command line's spelling: the
// inverses of parse_lr_schedule, parse_plateau and parse_early_stopping (schedule.cpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "mirror/optim/schedule.h"

namespace mirror {

namespace {
// key=value pairs, in the order added, joined by commas.
class Settings {
 public:
  // Shortest spelling that reads back as the same double ("0.1", "2000", "1e-05").
  void number(const char* key, double value, double default_value) {
    if (value != default_value) add(key, fmt::format("{}", value));
  }
  void whole(const char* key, int64_t value, int64_t default_value) {
    if (value != default_value) add(key, fmt::format("{}", value));
  }
  void flag(const char* key, bool value, bool default_value) {
    if (value != default_value) add(key, value ? "1" : "0");
  }
  void text(const char* key, const std::string& value, const std::string& default_value) {
    if (value != default_value) add(key, value);
  }
  void numbers(const char* key, const std::vector<double>& values) {
    if (!values.empty()) add(key, fmt::format("{}", fmt::join(values, "/")));
  }
  void watch(const MetricWatch& w, const MetricWatch& defaults) {
    text("mode", w.mode, defaults.mode);
    number("min_delta", w.min_delta, defaults.min_delta);
  }
  const std::string& joined() const { return out_; }

 private:
  void add(const char* key, const std::string& value) {
    if (!out_.empty()) out_ += ',';
    out_ += fmt::format("{}={}", key, value);
  }
  std::string out_;
};

std::string with_monitor(const std::string& monitor, const Settings& settings) {
  return settings.joined().empty() ? monitor : monitor + ":" + settings.joined();
}
}  // namespace

std::string lr_schedule_settings(const LrSchedule& s) {
  const LrSchedule d;  // what parse_lr_schedule starts from
  Settings out;
  out.number("decay_steps", s.decay_steps, d.decay_steps);
  out.number("decay_rate", s.decay_rate, d.decay_rate);
  out.flag("staircase", s.staircase, d.staircase);
  out.numbers("boundaries", s.boundaries);
  out.numbers("values", s.values);
  out.number("end_learning_rate", s.end_learning_rate, d.end_learning_rate);
  out.number("power", s.power, d.power);
  out.flag("cycle", s.cycle, d.cycle);
  out.number("alpha", s.alpha, d.alpha);
  out.number("t_mul", s.t_mul, d.t_mul);
  out.number("m_mul", s.m_mul, d.m_mul);
  out.flag("per_epoch", s.per_epoch, d.per_epoch);
  out.number("warmup_from", s.warmup_from, d.warmup_from);
  return out.joined();
}

std::string plateau_spec(const PlateauOptions& o) {
  if (!o.enabled) return {};
  static const PlateauOptions d = parse_plateau("val_loss");  // the parser's defaults
  Settings out;
  out.number("factor", o.factor, d.factor);
  out.whole("patience", o.patience, d.patience);
  out.whole("cooldown", o.cooldown, d.cooldown);
  out.number("min_lr", o.min_lr, d.min_lr);
  out.watch(o.watch, d.watch);
  return with_monitor(o.watch.monitor, out);
}

std::string early_stopping_spec(const EarlyStoppingOptions& o) {
  if (!o.enabled) return {};
  static const EarlyStoppingOptions d = parse_early_stopping("val_loss");  // the parser's defaults
  Settings out;
  out.whole("patience", o.patience, d.patience);
  out.flag("restore_best", o.restore_best, d.restore_best);
  out.whole("start_from_epoch", o.start_from_epoch, d.start_from_epoch);
  out.watch(o.watch, d.watch);
  return with_monitor(o.watch.monitor, out);
}

}  // namespace mirror
