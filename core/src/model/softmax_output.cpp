#include "mirror/model/softmax_output.h"

namespace mirror {

bool ends_in_softmax(const ModelSpec& spec) {
  if (spec.layers.empty()) return false;
  const LayerSpec& last = spec.layers.back();
  switch (last.kind) {
    case LayerKind::kActivation:
    case LayerKind::kDense:
    case LayerKind::kConv1D:
    case LayerKind::kConv2D: return last.activation == Activation::kSoftmax;
    default: return false;
  }
}

bool softmax_applied_twice(const ModelSpec& spec) { return ends_in_softmax(spec) && !spec.train_on_probabilities; }

std::string softmax_notice(const ModelSpec& spec) {
  if (!softmax_applied_twice(spec)) return {};
  return "This model ends in softmax, so it outputs probabilities, but the loss used here expects raw scores "
         "(logits) and applies softmax itself. Trained as it is, softmax is applied twice: the model learns "
         "slowly and gets stuck (often guessing one class). Keras avoids this because its loss takes "
         "probabilities. Choose a fix: train on probabilities, as Keras does (the model stays as written), "
         "or drop the final softmax (the model then outputs logits).";
}

ModelSpec trained_on_probabilities(ModelSpec spec) {
  spec.train_on_probabilities = true;
  return spec;
}

ModelSpec with_softmax_dropped(ModelSpec spec) {
  if (!ends_in_softmax(spec)) return spec;
  if (spec.layers.back().kind == LayerKind::kActivation) spec.layers.pop_back();
  else spec.layers.back().activation = Activation::kLinear;
  spec.train_on_probabilities = false;
  return spec;
}

}  // namespace mirror
