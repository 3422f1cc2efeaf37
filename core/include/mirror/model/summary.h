#pragma once
// Keras-style model summary table.

#include <string>

#include "mirror/model/shape.h"

namespace mirror {

// The table Keras' model.summary() prints: Layer (type), Output Shape, Param #, then Total /
// Trainable / Non-trainable params. Layers with errors show "error: ..." in place of a shape.
std::string format_summary(const std::string& model_name, const ModelAnalysis& analysis);

}  // namespace mirror
