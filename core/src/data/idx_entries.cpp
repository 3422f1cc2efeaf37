// The registry's entries for the MNIST family: IDX files in a folder, by default where Debian's
// packages put them.
#include <fmt/format.h>

#include <filesystem>

#include "mirror/data/dataset_registry.h"
#include "mirror/data/idx.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kMnistDir = "/usr/share/datasets/mnist";

std::string idx_folder(const DatasetOptions& o, const char* default_dir) {
  return o.data_dir.empty() ? default_dir : o.data_dir;
}

// Why load_idx_directory would not find the training images in `dir`; empty when it would.
std::string idx_missing(const std::string& dir) {
  std::error_code ec;
  for (const char* f : {"train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"})
    if (std::filesystem::exists(std::filesystem::path(dir) / f, ec)) return {};
  return fmt::format("{} has no train-images-idx3-ubyte(.gz)", dir);
}
}  // namespace

DatasetEntry fashion_mnist_entry() {
  return {
      .name = "fashion-mnist",
      .summary = "Zalando's 28x28 clothing images, 10 classes (Debian: dataset-fashion-mnist)",
      .default_dir = kFashionDir,
      .uses = {.data_dir = true},
      .missing = [](const DatasetOptions& o) { return idx_missing(idx_folder(o, kFashionDir)); },
      .load =
          [](const DatasetOptions& o) {
            try {
              return load_idx_directory(o.name, idx_folder(o, kFashionDir),
                                        {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
                                         "Sneaker", "Bag", "Ankle boot"});
            } catch (const DataError& e) {
              if (!o.data_dir.empty()) throw;
              throw DataError(fmt::format("{} (install it with: apt-get install dataset-fashion-mnist, or "
                                          "pass --data-dir)", e.what()));
            }
          },
  };
}

DatasetEntry mnist_entry() {
  return {
      .name = "mnist",
      .summary = "28x28 handwritten digits, 10 classes (IDX files)",
      .default_dir = kMnistDir,
      .uses = {.data_dir = true},
      .missing = [](const DatasetOptions& o) { return idx_missing(idx_folder(o, kMnistDir)); },
      .load =
          [](const DatasetOptions& o) {
            std::vector<std::string> digits;
            for (int d = 0; d < 10; ++d) digits.push_back(std::to_string(d));
            return load_idx_directory(o.name, idx_folder(o, kMnistDir), std::move(digits));
          },
  };
}

}  // namespace mirror
