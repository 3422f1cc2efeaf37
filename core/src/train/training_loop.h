#pragma once
// The training loop of a run, given its strategy built (Trainer does that): epochs of steps with
// the pace, pauses and stops of TrainControl, validation, Keras' epoch-end callbacks and
// checkpoints, each reported to the sink. Private to the train floor.

#include <torch/types.h>

#include "mirror/data/dataset.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/checkpoint_store.h"
#include "mirror/train/config.h"
#include "mirror/train/control.h"
#include "mirror/train/events.h"

namespace mirror {

// Trains from `start` (a checkpoint's position, or the beginning) until the epochs or the step
// limit end, a stop is asked, or early stopping ends it; never throws (a failure is the result's).
// `best_params`: early stopping's best weights so far (restore_best), undefined when none.
RunFinished run_training_loop(const TrainConfig& config, const Dataset& data, MirroredStrategy& strategy,
                              EventSink& sink, TrainControl& control, CheckpointStore* store,
                              const TrainPosition& start, torch::Tensor best_params);

}  // namespace mirror
