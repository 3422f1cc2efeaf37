#pragma once
// IDX files (the MNIST family's format), plain or gzip-compressed.

#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "mirror/data/dataset.h"

namespace mirror {

// Reads an IDX file of unsigned bytes (type code 0x08), gzip or raw. Returns a uint8 tensor of the
// declared dimensions. Throws DataError if the file is missing, is not IDX, has another element
// type, or holds fewer or more bytes than its header declares.
at::Tensor read_idx_ubyte(const std::string& path);

// Loads an MNIST-layout directory (train-/t10k- images and labels, each .gz or raw) as a
// dataset named `name` with pixels scaled to [0, 1] and shape (28, 28, 1).
std::shared_ptr<const Dataset> load_idx_directory(const std::string& name, const std::string& dir,
                                                  std::vector<std::string> class_names);

}  // namespace mirror
