// Schedules and Keras' callbacks as run.json records them (to_json and back), the document a
// resumed run and the window read.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mirror/optim/schedule.h"
#include "mirror/util/error.h"
#include "mirror/util/json_whole.h"

namespace mirror {

nlohmann::json to_json(const LrSchedule& s) {
  return {{"kind", s.kind},
          {"per_epoch", s.per_epoch},
          {"decay_steps", s.decay_steps},
          {"decay_rate", s.decay_rate},
          {"staircase", s.staircase},
          {"boundaries", s.boundaries},
          {"values", s.values},
          {"end_learning_rate", s.end_learning_rate},
          {"power", s.power},
          {"cycle", s.cycle},
          {"alpha", s.alpha},
          {"t_mul", s.t_mul},
          {"m_mul", s.m_mul},
          {"warmup_steps", s.warmup_steps},
          {"warmup_from", s.warmup_from},
          {"scale_reference_batch", s.scale_reference_batch}};
}

namespace {
nlohmann::json to_json(const MetricWatch& w) {
  return {{"monitor", w.monitor}, {"mode", w.mode}, {"min_delta", w.min_delta}};
}
MetricWatch watch_from_json(const nlohmann::json& j, const MetricWatch& defaults) {
  MetricWatch w = defaults;
  w.monitor = j.value("monitor", w.monitor);
  w.mode = j.value("mode", w.mode);
  w.min_delta = j.value("min_delta", w.min_delta);
  return w;
}
template <typename F>
auto parse_json(const char* what, F&& f) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", what, e.what()));
  }
}
}  // namespace

nlohmann::json to_json(const PlateauOptions& o) {
  return {{"enabled", o.enabled}, {"watch", to_json(o.watch)}, {"factor", o.factor},      {"patience", o.patience},
          {"cooldown", o.cooldown}, {"min_lr", o.min_lr}};
}

nlohmann::json to_json(const EarlyStoppingOptions& o) {
  return {{"enabled", o.enabled},
          {"watch", to_json(o.watch)},
          {"patience", o.patience},
          {"restore_best", o.restore_best},
          {"start_from_epoch", o.start_from_epoch}};
}

LrSchedule lr_schedule_from_json(const nlohmann::json& j) {
  return parse_json("learning-rate schedule", [&] {
    LrSchedule s;
    if (!j.is_object()) return s;
    s.kind = j.value("kind", s.kind);
    s.per_epoch = j.value("per_epoch", s.per_epoch);
    s.decay_steps = j.value("decay_steps", s.decay_steps);
    s.decay_rate = j.value("decay_rate", s.decay_rate);
    s.staircase = j.value("staircase", s.staircase);
    s.boundaries = j.value("boundaries", s.boundaries);
    s.values = j.value("values", s.values);
    s.end_learning_rate = j.value("end_learning_rate", s.end_learning_rate);
    s.power = j.value("power", s.power);
    s.cycle = j.value("cycle", s.cycle);
    s.alpha = j.value("alpha", s.alpha);
    s.t_mul = j.value("t_mul", s.t_mul);
    s.m_mul = j.value("m_mul", s.m_mul);
    s.warmup_steps = json_whole<int64_t>(j, "warmup_steps", "lr_schedule.warmup_steps", s.warmup_steps);
    s.warmup_from = j.value("warmup_from", s.warmup_from);
    s.scale_reference_batch =
        json_whole<int64_t>(j, "scale_reference_batch", "lr_schedule.scale_reference_batch", s.scale_reference_batch);
    s.validate();
    return s;
  });
}

PlateauOptions plateau_from_json(const nlohmann::json& j) {
  return parse_json("reduce-lr-on-plateau", [&] {
    PlateauOptions o;
    if (!j.is_object()) return o;
    o.enabled = j.value("enabled", false);
    o.watch = watch_from_json(j.value("watch", nlohmann::json::object()), o.watch);
    o.factor = j.value("factor", o.factor);
    o.patience = json_whole<int>(j, "patience", "reduce_lr_on_plateau.patience", o.patience);
    o.cooldown = json_whole<int>(j, "cooldown", "reduce_lr_on_plateau.cooldown", o.cooldown);
    o.min_lr = j.value("min_lr", o.min_lr);
    if (o.enabled) o.validate();
    return o;
  });
}

EarlyStoppingOptions early_stopping_from_json(const nlohmann::json& j) {
  return parse_json("early stopping", [&] {
    EarlyStoppingOptions o;
    if (!j.is_object()) return o;
    o.enabled = j.value("enabled", false);
    o.watch = watch_from_json(j.value("watch", nlohmann::json::object()), o.watch);
    o.patience = json_whole<int>(j, "patience", "early_stopping.patience", o.patience);
    o.restore_best = j.value("restore_best", o.restore_best);
    o.start_from_epoch = json_whole<int>(j, "start_from_epoch", "early_stopping.start_from_epoch", o.start_from_epoch);
    if (o.enabled) o.validate();
    return o;
  });
}

}  // namespace mirror
