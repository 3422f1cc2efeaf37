#pragma once
// What a run says when it starts (RunStarted): the data, the model, the devices, how the
// strategy reduces and runs its steps. Private to the train floor (the trainer sends it).

#include <cstdint>

#include "mirror/data/dataset.h"
#include "mirror/strategy/mirrored.h"
#include "mirror/train/config.h"
#include "mirror/train/events.h"

namespace mirror {

// The started event of a run of `config` on `strategy` over a dataset described by `data`, with
// `train_size` and `val_size` examples and `steps_per_epoch` steps an epoch.
RunStarted run_started(const MirroredStrategy& strategy, const TrainConfig& config, const DatasetInfo& data,
                       int64_t train_size, int64_t val_size, int64_t steps_per_epoch);

}  // namespace mirror
