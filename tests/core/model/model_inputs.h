#pragma once
// Inputs the model tests analyse against: the tutorial's Reuters sequences and 28x28 images.

#include "mirror/model/shape.h"

namespace mirror::testing {

inline InputSpec text_input() { return InputSpec{{300}, true, 30982, 46}; }
inline InputSpec image_input() { return InputSpec{{28, 28, 1}, false, 0, 10}; }

}  // namespace mirror::testing
