#include "mirror/model/lowering.h"

#include <fmt/format.h>

#include "mirror/util/error.h"

namespace mirror {

namespace {
// Tracks which layout the running tensor is in and adds a permutation only where the next
// operation needs the other one.
class Layout {
 public:
  explicit Layout(std::vector<Op>& ops) : ops_(ops) {}
  void need_channels_first(size_t rank) {
    if (channels_first_ || rank < 2) return;
    permute(rank == 2 ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{0, 3, 1, 2});
    channels_first_ = true;
  }
  void need_channels_last(size_t rank) {
    if (!channels_first_ || rank < 2) return;
    permute(rank == 2 ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{0, 2, 3, 1});
    channels_first_ = false;
  }
  bool channels_first() const { return channels_first_; }
  void set_channels_last() { channels_first_ = false; }

 private:
  void permute(std::vector<int64_t> perm) {
    Op op;
    op.kind = OpKind::kPermute;
    op.perm = std::move(perm);
    ops_.push_back(std::move(op));
  }
  std::vector<Op>& ops_;
  bool channels_first_ = false;
};

Op make_op(OpKind kind, const LayerReport& r) {
  Op op;
  op.kind = kind;
  op.name = r.name;
  op.layer = r.resolved;
  return op;
}

// The activation a Conv or Dense layer applies to its output, as an op of its own.
void add_activation(std::vector<Op>& ops, const LayerSpec& l) {
  if (l.activation == Activation::kLinear) return;
  Op op;
  op.kind = OpKind::kActivation;
  op.layer.kind = LayerKind::kActivation;
  op.layer.activation = l.activation;
  ops.push_back(std::move(op));
}
}  // namespace

std::vector<Op> lower(const ModelAnalysis& analysis) {
  if (!analysis.ok()) throw ConfigError(fmt::format("model does not fit the data: {}", analysis.describe_errors()));
  std::vector<Op> ops;
  Layout layout(ops);
  std::vector<int64_t> in_shape = analysis.input_shape;  // entering the layer, Keras layout
  for (const auto& r : analysis.layers) {
    const auto& l = r.resolved;
    const size_t rank = in_shape.size();
    const int64_t channels = in_shape.empty() ? 0 : in_shape.back();
    const size_t first_op = ops.size();
    switch (l.kind) {
      case LayerKind::kEmbedding:
        ops.push_back(make_op(OpKind::kEmbedding, r));
        layout.set_channels_last();
        break;
      case LayerKind::kConv1D:
      case LayerKind::kConv2D: {
        layout.need_channels_first(rank);
        Op op = make_op(OpKind::kConv, r);
        op.spatial = l.kind == LayerKind::kConv1D ? 1 : 2;
        op.in_channels = channels;
        op.strides = l.strides.empty() ? std::vector<int64_t>(static_cast<size_t>(op.spatial), 1) : l.strides;
        if (l.same_padding)
          for (int d = 0; d < op.spatial; ++d) {
            const int64_t total = l.kernel[static_cast<size_t>(d)] - 1;  // strides are 1 (checked by analyze)
            op.pad_begin.push_back(total / 2);
            op.pad_end.push_back(total - total / 2);
          }
        ops.push_back(std::move(op));
        add_activation(ops, l);
        break;
      }
      case LayerKind::kMaxPool1D:
      case LayerKind::kMaxPool2D: {
        layout.need_channels_first(rank);
        Op op = make_op(OpKind::kMaxPool, r);
        op.spatial = l.kind == LayerKind::kMaxPool1D ? 1 : 2;
        op.strides = l.strides.empty() ? l.pool : l.strides;
        if (l.same_padding)  // Keras pads half before (rounded down), the rest after; ceil mode pads after
          for (int d = 0; d < op.spatial; ++d) {
            const int64_t n = in_shape[static_cast<size_t>(d)], p = l.pool[static_cast<size_t>(d)];
            const int64_t total = (p - n % p) % p;  // strides equal the pool (checked by analyze)
            op.pad_begin.push_back(total / 2);
            op.pad_end.push_back(total - total / 2);
          }
        ops.push_back(std::move(op));
        break;
      }
      case LayerKind::kGlobalMaxPool1D:
      case LayerKind::kGlobalAveragePool1D: {
        Op op = make_op(l.kind == LayerKind::kGlobalMaxPool1D ? OpKind::kReduceMax : OpKind::kReduceMean, r);
        op.dim = layout.channels_first() ? 2 : 1;  // the steps axis
        ops.push_back(std::move(op));
        layout.set_channels_last();
        break;
      }
      case LayerKind::kFlatten:
        // Flattens in whatever layout the tensor is in: after a convolution that is channels
        // first, which orders the features differently from Keras but is the same model.
        ops.push_back(make_op(OpKind::kFlatten, r));
        layout.set_channels_last();
        break;
      case LayerKind::kDense: {
        layout.need_channels_last(rank);
        Op op = make_op(OpKind::kLinear, r);
        op.in_channels = channels;
        ops.push_back(std::move(op));
        add_activation(ops, l);
        break;
      }
      case LayerKind::kDropout:
        ops.push_back(make_op(OpKind::kDropout, r));
        break;
      case LayerKind::kActivation:
        ops.push_back(make_op(OpKind::kActivation, r));
        break;
      case LayerKind::kCategoryEncoding:
        ops.push_back(make_op(OpKind::kCategoryEncoding, r));
        break;
    }
    for (size_t i = first_op; i < ops.size(); ++i) ops[i].in_rank = i == first_op ? rank : r.output_shape.size();
    in_shape = r.output_shape;
  }
  return ops;
}

}  // namespace mirror
