#include "epoch_callbacks.h"

#include <fmt/format.h>

#include <utility>

#include "mirror/util/error.h"
#include "mirror/util/words.h"

namespace mirror {

void check_monitors(const TrainConfig& config, int64_t validation_examples) {
  for (const auto& [on, watch] : {std::pair{config.plateau.enabled, config.plateau.watch},
                                  std::pair{config.early_stopping.enabled, config.early_stopping.watch}})
    if (on && validation_examples == 0 && watch.monitor.rfind("val_", 0) == 0)
      throw ConfigError(fmt::format("{} is watched, but this dataset has no validation split; watch loss or "
                                    "accuracy instead",
                                    watch.monitor));
}

double monitored(const EpochMetrics& em, const std::string& name) {
  if (name == "val_loss") return em.val_loss;
  if (name == "val_accuracy") return em.val_accuracy;
  if (name == "val_top_k_accuracy") return em.val_top_k_accuracy;
  if (name == "loss") return em.loss;
  if (name == "accuracy") return em.accuracy;
  return em.top_k_accuracy;
}

EpochVerdict epoch_callbacks(const TrainConfig& config, const EpochMetrics& em, CallbackState& state) {
  EpochVerdict verdict;
  if (config.plateau.enabled)
    plateau_epoch_end(config.plateau, monitored(em, config.plateau.watch.monitor), em.learning_rate, state);
  const auto& es = config.early_stopping;
  if (!es.enabled) return verdict;
  const int best_before = state.stop_best_epoch;
  verdict.stop = early_stopping_epoch_end(es, monitored(em, es.watch.monitor), em.epoch, state);
  verdict.best = es.restore_best && state.stop_best_epoch != best_before;
  return verdict;
}

std::string early_stop_message(const TrainConfig& config, const EpochMetrics& em, const CallbackState& state,
                               bool restored) {
  return fmt::format("early stop at epoch {}: {} has not improved for {} (best {:.4g} at epoch {}{})", em.epoch,
                     config.early_stopping.watch.monitor, counted(state.stop_wait, "epoch"), state.stop_best,
                     state.stop_best_epoch, restored ? ", whose weights were restored" : "");
}

}  // namespace mirror
