#pragma once
// How the learning rate moves during a run: Keras' schedules (formulas and names), a linear
// warmup in front of any of them, the linear scaling rule, ReduceLROnPlateau and early stopping.
// Plain values and pure functions, no torch: the window plots a schedule before training.

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

struct LrSchedule {
  // constant | piecewise | exponential | inverse-time | polynomial | cosine | cosine-restarts
  std::string kind = "constant";
  bool per_epoch = false;     // count epochs (0-based, like Keras' LearningRateScheduler), not steps
  double decay_steps = 0;     // exponential, inverse-time, polynomial, cosine; cosine-restarts: the first period
  double decay_rate = 0;      // exponential, inverse-time
  bool staircase = false;     // exponential, inverse-time: decay in whole periods
  std::vector<double> boundaries;  // piecewise: steps (or epochs)
  std::vector<double> values;      // piecewise: one more rate than boundaries
  double end_learning_rate = 0.0001;  // polynomial
  double power = 1.0;                 // polynomial
  bool cycle = false;                 // polynomial
  double alpha = 0.0;   // cosine, cosine-restarts: the floor, as a fraction of the rate
  double t_mul = 2.0;   // cosine-restarts: each period this much longer
  double m_mul = 1.0;   // cosine-restarts: each restart's peak this much lower
  int64_t warmup_steps = 0;  // a linear ramp before the schedule (always in steps)
  double warmup_from = 0.0;  // the ramp starts at this fraction of the schedule's first rate
  int64_t scale_reference_batch = 0;  // linear scaling rule: rate x global batch / this; 0: off

  // The rate for the update after `step` updates (0-based), in epoch `epoch` (1-based), for a
  // run whose base rate is `base` and global batch `batch`. Pure.
  double rate(double base, int64_t step, int epoch, int64_t batch) const;
  // Throws ConfigError naming the bad part.
  void validate() const;
  // "cosine(decay_steps=2000, alpha=0.1) after 100 warmup steps, scaled x8 (batch 256 / 32)".
  std::string describe(int64_t batch = 0) const;
  bool is_constant() const { return kind == "constant" && warmup_steps == 0 && scale_reference_batch == 0; }
};

// Parses "cosine:decay_steps=2000,alpha=0.1" (kind, then key=value pairs; piecewise takes
// "boundaries=100/200,values=0.1/0.01/0.001"; "per_epoch=1" counts epochs). Throws ConfigError
// naming the bad part.
LrSchedule parse_lr_schedule(const std::string& spec);
const std::vector<std::string>& lr_schedule_kinds();

// Watches a metric at epoch ends: is it better than the best so far (by more than min_delta)?
struct MetricWatch {
  std::string monitor = "val_loss";  // val_loss | val_accuracy | loss | accuracy | val_top_k_accuracy | top_k_accuracy
  std::string mode = "auto";         // min | max | auto (min for losses, max otherwise)
  double min_delta = 0;
  bool minimizing() const;
  bool improves(double value, double best) const;  // best: NaN before the first value
};

// Keras' ReduceLROnPlateau: after `patience` epochs without improvement, multiply the rate by
// `factor` (not below min_lr), then wait `cooldown` epochs.
struct PlateauOptions {
  bool enabled = false;
  MetricWatch watch;
  double factor = 0.1;
  int patience = 10;
  int cooldown = 0;
  double min_lr = 0;
  void validate() const;
};

// Keras' EarlyStopping: stop after `patience` epochs without improvement; optionally put back the
// best epoch's weights.
struct EarlyStoppingOptions {
  bool enabled = false;
  MetricWatch watch;
  int patience = 0;
  bool restore_best = false;
  int start_from_epoch = 0;
  void validate() const;
};

// ReduceLROnPlateau works on a constant rate (warmup and batch scaling allowed), as in Keras:
// throws ConfigError when `plateau` is on over a decaying schedule.
void check_plateau_fits(const PlateauOptions& plateau, const LrSchedule& schedule);

// "val_loss:factor=0.5,patience=2,cooldown=1,min_lr=1e-5,min_delta=1e-4,mode=min"
PlateauOptions parse_plateau(const std::string& spec);
// "val_loss:patience=3,min_delta=0.001,restore_best=1,mode=min,start_from_epoch=0"
EarlyStoppingOptions parse_early_stopping(const std::string& spec);

// The parsers' inverses, for a front end that shows a config as the command line spells it.
// lr_schedule_settings gives what follows the kind's colon ("decay_steps=2000,alpha=0.1"; empty
// when every setting is its default), leaving out warmup_steps and scale_reference_batch, which
// have flags of their own: parse_lr_schedule(kind + ":" + settings) gives `s` back with those two
// at 0. plateau_spec and early_stopping_spec give "" when the rule is off, else a spec that parses
// back to the same options. Numbers are written so that they read back exactly. Pure.
std::string lr_schedule_settings(const LrSchedule& s);
std::string plateau_spec(const PlateauOptions& o);
std::string early_stopping_spec(const EarlyStoppingOptions& o);

// The state plateau and early stopping carry from epoch to epoch (checkpointed).
struct CallbackState {
  double plateau_scale = 1.0;  // product of the reductions so far
  double plateau_best = 0;     // NaN until the first epoch
  int plateau_wait = 0;
  int plateau_cooldown = 0;
  double stop_best = 0;        // NaN until the first epoch
  int stop_wait = 0;
  int stop_best_epoch = 0;
  CallbackState();
};

// One epoch's end for ReduceLROnPlateau: updates `s` with the monitored value; returns true when
// it reduced the rate. `current_rate` is the rate the last epoch used (for min_lr).
bool plateau_epoch_end(const PlateauOptions& o, double value, double current_rate, CallbackState& s);
// One epoch's end for early stopping (epoch 1-based): updates `s`; returns true when the run
// should stop now. Sets s.stop_best_epoch to the epoch of the best value.
bool early_stopping_epoch_end(const EarlyStoppingOptions& o, double value, int epoch, CallbackState& s);

nlohmann::json to_json(const LrSchedule& s);
nlohmann::json to_json(const PlateauOptions& o);
nlohmann::json to_json(const EarlyStoppingOptions& o);
// Inverses of to_json; a missing document gives the defaults. Throw ConfigError on malformed input.
LrSchedule lr_schedule_from_json(const nlohmann::json& j);
PlateauOptions plateau_from_json(const nlohmann::json& j);
EarlyStoppingOptions early_stopping_from_json(const nlohmann::json& j);

}  // namespace mirror
