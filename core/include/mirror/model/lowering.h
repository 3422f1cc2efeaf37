#pragma once
// A model as the sequence of tensor operations that run it. Keras keeps channels last, LibTorch's
// convolutions and pools want them first: lowering decides once where the layout changes, so the
// LibTorch builder, the ONNX exporter and the generated PyTorch code all run the same operations
// in the same order and cannot drift apart. Plain data, no torch.

#include <cstdint>
#include <string>
#include <vector>

#include "mirror/model/shape.h"

namespace mirror {

enum class OpKind {
  kPermute,           // perm: axes of the result, batch included
  kEmbedding,         // layer.input_dim x layer.output_dim table, looked up by token id
  kConv,              // spatial 1 or 2, channels first; layer: units, kernel, strides, same_padding, use_bias
  kMaxPool,           // spatial 1 or 2, channels first; layer: pool, strides; same_padding: pad_begin with
                      // -inf, then ceil mode (which pads the end)
  kReduceMax,         // over axis `dim` (batch is axis 0), dropping it
  kReduceMean,
  kFlatten,           // everything after the batch axis into one
  kLinear,            // on the last axis; in_channels -> layer.units
  kDropout,           // layer.rate while training; the identity when predicting
  kActivation,        // layer.activation, elementwise (softmax: over the last axis)
  kCategoryEncoding,  // token ids (B, L) -> (B, layer.units): multi-hot, or counts with layer.count_mode
};

struct Op {
  OpKind kind = OpKind::kPermute;
  // The Keras layer it comes from ("conv1d_1"); empty for the layout changes and for the
  // activation a Conv or Dense layer carries. Ops with parameters hold "<name>.weight" and
  // "<name>.bias", as LibTorch's named_parameters() and a PyTorch state dict name them.
  std::string name;
  LayerSpec layer;               // the resolved layer (sizes from the dataset filled in)
  std::vector<int64_t> perm;     // kPermute
  int64_t dim = 0;               // kReduceMax, kReduceMean
  int spatial = 0;               // kConv, kMaxPool
  size_t in_rank = 0;            // axes of the op's input after the batch axis
  int64_t in_channels = 0;       // kConv, kLinear
  std::vector<int64_t> strides;  // kConv, kMaxPool: as applied (defaults filled in)
  // kConv with padding "same": zeros before and after along each spatial axis, as LibTorch pads
  // (the odd one after). kMaxPool with padding "same": as Keras pads (ignored values, half of
  // what the last window lacks before, rounded down, the rest after).
  std::vector<int64_t> pad_begin, pad_end;
  bool has_parameters() const { return kind == OpKind::kEmbedding || kind == OpKind::kConv || kind == OpKind::kLinear; }
};

// The operations that run `analysis`'s model on a batch in Keras layout (B, ...), ending with
// (B, classes). Throws ConfigError if `analysis` is not ok(). Pure.
std::vector<Op> lower(const ModelAnalysis& analysis);

}  // namespace mirror
