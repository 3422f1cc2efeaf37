#include "mirror/data/dataset.h"

#include "mirror/data/batch.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <stdexcept>

#include "mirror/util/error.h"

namespace mirror {

namespace {
void check_split(const DatasetInfo& info, const char* split, const torch::Tensor& x,
                 const torch::Tensor& y) {
  if (!x.defined() || !y.defined())
    throw DataError(fmt::format("dataset {}: the {} split is missing", info.name, split));
  if (y.dim() != 1 || x.size(0) != y.size(0))
    throw DataError(fmt::format("dataset {}: {} split has {} inputs but {} labels", info.name,
                                split, x.size(0), y.numel()));
  std::vector<int64_t> shape(x.sizes().begin() + 1, x.sizes().end());
  if (shape != info.input_shape)
    throw DataError(fmt::format("dataset {}: {} inputs have shape {}, expected {}", info.name,
                                split, format_shape(shape), format_shape(info.input_shape)));
  if (y.numel() > 0) {
    const int64_t lo = y.min().item<int64_t>();
    const int64_t hi = y.max().item<int64_t>();
    if (lo < 0 || hi >= info.num_classes)
      throw DataError(fmt::format("dataset {}: {} labels span [{}, {}] but there are {} classes",
                                  info.name, split, lo, hi, info.num_classes));
  }
}
// Images kept as 8-bit values (the user's own images: a quarter of the memory of float32) reach
// the model as float32 in [0, 1], like the built-in image sets.
torch::Tensor as_model_input(torch::Tensor x) {
  if (x.scalar_type() != torch::kUInt8) return x;
  return x.to(torch::kFloat32).div_(255.0);
}
}  // namespace

struct Dataset::Tensors {
  torch::Tensor x_train, y_train, x_val, y_val;
  const torch::Tensor& x(Split s) const { return s == Split::kTrain ? x_train : x_val; }
  const torch::Tensor& y(Split s) const { return s == Split::kTrain ? y_train : y_val; }
};

Dataset::Dataset(DatasetInfo info, at::Tensor x_train, at::Tensor y_train, at::Tensor x_val, at::Tensor y_val)
    : info_(std::move(info)) {
  auto t = std::make_shared<Tensors>();
  t->x_train = std::move(x_train);
  t->y_train = y_train.defined() ? y_train.to(torch::kInt64) : y_train;
  t->x_val = std::move(x_val);
  t->y_val = y_val.defined() ? y_val.to(torch::kInt64) : y_val;
  if (info_.num_classes < 2)
    throw DataError(fmt::format("dataset {}: needs at least 2 classes", info_.name));
  check_split(info_, "train", t->x_train, t->y_train);
  check_split(info_, "validation", t->x_val, t->y_val);
  if (t->x_train.size(0) == 0) throw DataError(fmt::format("dataset {}: no training examples", info_.name));
  train_size_ = t->y_train.size(0);
  val_size_ = t->y_val.size(0);
  tensors_ = std::move(t);
}

int64_t Dataset::size(Split split) const { return split == Split::kTrain ? train_size_ : val_size_; }

Batch Dataset::gather(Split split, const std::vector<int64_t>& indices) const {
  const int64_t n = size(split);
  for (int64_t i : indices)
    if (i < 0 || i >= n) throw std::out_of_range(fmt::format("example index {} not in [0, {})", i, n));
  auto index = torch::from_blob(const_cast<int64_t*>(indices.data()),
                                {static_cast<int64_t>(indices.size())}, torch::kInt64);
  return {as_model_input(tensors_->x(split).index_select(0, index)), tensors_->y(split).index_select(0, index)};
}

Batch Dataset::slice(Split split, int64_t begin, int64_t end) const {
  return {as_model_input(tensors_->x(split).slice(0, begin, end)), tensors_->y(split).slice(0, begin, end)};
}

std::vector<int64_t> Dataset::class_counts(Split split) const {
  auto counts = torch::bincount(tensors_->y(split), /*weights=*/{}, /*minlength=*/info_.num_classes);
  return std::vector<int64_t>(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + counts.numel());
}

std::string format_shape(const std::vector<int64_t>& shape) {
  std::string out = "(None";
  for (int64_t d : shape) out += fmt::format(", {}", d);
  return out + ")";
}

}  // namespace mirror
