#pragma once
// A model whose output passes through a softmax, trained by this engine's loss (cross-entropy that
// expects logits and applies a softmax itself), has the softmax applied twice: it learns slowly
// and stalls (the Keras tutorial's bug). Most Keras models end in softmax, because Keras' default
// loss takes probabilities (from_logits=False). Here the teacher chooses what to do: keep it (to
// show the bug), train on probabilities as Keras does, or drop the softmax. Plain data, no torch.

#include <string>

#include "mirror/model/layer_spec.h"

namespace mirror {

// Whether the model's last layer is a softmax: an Activation layer, or a Dense or convolution
// layer with activation softmax. Pure.
bool ends_in_softmax(const ModelSpec& spec);

// Whether training `spec` applies the softmax twice: it ends in a softmax and does not train on
// probabilities. Pure.
bool softmax_applied_twice(const ModelSpec& spec);

// In plain words, for the person who opened or built the model: what is wrong and the two fixes.
// Empty when the softmax is not applied twice. Pure.
std::string softmax_notice(const ModelSpec& spec);

// Fix (a): the same model, trained on its probabilities as Keras' from_logits=False does (the
// loss takes the log of the softmax's output). The layers do not change. Pure.
ModelSpec trained_on_probabilities(ModelSpec spec);

// Fix (b): the model without its final softmax: an Activation layer is removed, a Dense or
// convolution layer's activation becomes linear; the loss then gets logits. No effect on a model
// that does not end in softmax. Pure.
ModelSpec with_softmax_dropped(ModelSpec spec);

}  // namespace mirror
