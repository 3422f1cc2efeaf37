#pragma once
// The core's event structs as Qt meta-types, so they can cross threads in queued signals.

#include <QMetaType>

#include <vector>

#include "mirror/train/events.h"

Q_DECLARE_METATYPE(mirror::RunStarted)
Q_DECLARE_METATYPE(mirror::StepMetrics)
Q_DECLARE_METATYPE(std::vector<mirror::StepMetrics>)
Q_DECLARE_METATYPE(mirror::EpochMetrics)
Q_DECLARE_METATYPE(mirror::RunFinished)
Q_DECLARE_METATYPE(mirror::Evaluation)
