#pragma once
// In-memory datasets: a train and a validation split of input tensors and integer labels.
// LibTorch-free, so that the window can describe a dataset without compiling LibTorch: the
// tensors live behind the class (dataset.cpp), and Batch, what gather and slice hand out, is in
// batch.h.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mirror {

enum class Split { kTrain, kValidation };

// What the inputs are: dense float features (images, 2-D points) or integer token ids.
enum class InputKind { kFloat, kTokens };

struct DatasetInfo {
  std::string name;                  // "fashion-mnist", "synthetic-text", ...
  std::string source;                // where it came from: a path or "synthetic, seed 42"
  std::vector<int64_t> input_shape;  // one example, Keras layout (channels last), no batch axis
  InputKind kind = InputKind::kFloat;
  int64_t num_classes = 0;
  int64_t vocab_size = 0;            // token datasets: largest token id + 1; else 0
  std::vector<std::string> class_names;  // may be empty
  // Token datasets with a word index: vocabulary->at(id) is the word for a token id. May be null.
  std::shared_ptr<const std::vector<std::string>> vocabulary;
  // Datasets read from the user's own files (images, texts, table): how many files were read and
  // a hash of their contents (hex), so two runs can tell whether they saw the same data. 0 / empty
  // for built-in and generated sets.
  int64_t file_count = 0;
  std::string content_hash;
};

}  // namespace mirror

namespace at {
class Tensor;  // torch::Tensor is at::Tensor
}  // namespace at

namespace mirror {

struct Batch;  // batch.h

// A dataset held in memory. Immutable after construction: every const method is thread-safe.
class Dataset {
 public:
  // Takes x/y for both splits. Checks that shapes agree with `info` and labels lie in
  // [0, num_classes); throws DataError naming the first mismatch.
  Dataset(DatasetInfo info, at::Tensor x_train, at::Tensor y_train, at::Tensor x_val, at::Tensor y_val);

  const DatasetInfo& info() const { return info_; }
  int64_t size(Split split) const;

  // Float inputs may be held as uint8 (0-255, for images read from the user's files); gather and
  // slice then hand them out as float32 divided by 255, so callers always see the model's input.

  // Examples at `indices` (any order, repeats allowed). Throws std::out_of_range on a bad index.
  // (Both need batch.h, where Batch is.)
  Batch gather(Split split, const std::vector<int64_t>& indices) const;
  // Examples [begin, end): views, no copy (uint8 inputs: converted to a new float32 tensor).
  Batch slice(Split split, int64_t begin, int64_t end) const;
  // Number of examples of each class in a split.
  std::vector<int64_t> class_counts(Split split) const;

 private:
  struct Tensors;  // x and y of both splits (dataset.cpp)

  DatasetInfo info_;
  int64_t train_size_ = 0, val_size_ = 0;
  std::shared_ptr<const Tensors> tensors_;  // shared: a copy of an immutable dataset shares them
};

// "(None, 300, 7)"-style text for a shape without its batch axis.
std::string format_shape(const std::vector<int64_t>& shape);

}  // namespace mirror
