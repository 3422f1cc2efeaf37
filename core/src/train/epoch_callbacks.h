#pragma once
// Keras' epoch-end callbacks in a run: ReduceLROnPlateau and EarlyStopping on the metric each
// watches. Private to the train floor (the training loop calls them).

#include <cstdint>
#include <string>

#include "mirror/optim/schedule.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"

namespace mirror {

// Throws ConfigError when a callback watches a validation metric and the data has no validation split.
void check_monitors(const TrainConfig& config, int64_t validation_examples);

// The value of the metric `name` ("val_loss", "accuracy", ...) in an epoch's metrics.
double monitored(const EpochMetrics& em, const std::string& name);

struct EpochVerdict {
  bool best = false;  // early stopping (restore_best) takes this epoch as the best so far: keep its weights
  bool stop = false;  // early stopping ends the run now
};

// Plateau and early stopping at the end of a whole epoch: updates `state` (a plateau's cut shows in
// the next steps' learning rate) and says what the loop must do.
EpochVerdict epoch_callbacks(const TrainConfig& config, const EpochMetrics& em, CallbackState& state);

// "early stop at epoch 7: val_loss has not improved for 3 epochs (best 0.41 at epoch 4, whose
// weights were restored)".
std::string early_stop_message(const TrainConfig& config, const EpochMetrics& em, const CallbackState& state,
                               bool restored);

}  // namespace mirror
