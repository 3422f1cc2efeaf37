#pragma once
// The "images" dataset: a folder of the user's images, one subfolder per class, read as Keras'
// `image_dataset_from_directory` reads it (labels inferred from the folders; the same files in
// each split as Keras for the same seed and validation_split). Light: no torch.
//
// What differs from Keras, on purpose:
// - values are scaled to [0, 1] (Keras yields 0-255), as the built-in image sets are;
// - every image is decoded and resized once, when the dataset loads, and kept in memory as 8-bit
//   values (a quarter of float32): at most half a level (0.5/255) from Keras' float result. A set
//   that would not fit is refused with the image size that would; streaming from disk is not
//   supported;
// - one class, or a class folder without images, is refused (Keras accepts both);
// - an image that cannot be read stops the load with a message naming it (Keras fails mid-epoch).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mirror/data/dataset_options.h"

namespace mirror {

class Dataset;

// The extensions Keras' image_dataset_from_directory lists (ALLOWLIST_FORMATS), lower-case.
const std::vector<std::string>& image_extensions();

// Loads the "images" dataset from options.data_dir: image_height x image_width (0: 256) with the
// channels of color_mode ("grayscale" 1, "rgb" 3, "rgba" 4; empty: rgb), resized bilinearly
// (crop_to_aspect_ratio: the centred crop of Keras' smart_resize first), split by
// validation_split (<0: 0.2) and seed. Reports progress through report_load_progress while it
// reads. Decodes on several threads. Throws ConfigError for a bad option, DataError naming the
// folder or file for bad input (no class folders, one class, an empty class, an empty, truncated,
// corrupt or too large image, not enough memory).
std::shared_ptr<const Dataset> load_image_folder(const DatasetOptions& options);

// Empty when `count` images of height x width x channels bytes fit in `available_bytes` (at most
// half of it, leaving room for training); else why not, with the largest square image size that
// would fit. Pure function.
std::string image_memory_problem(int64_t count, int64_t height, int64_t width, int64_t channels,
                                 uint64_t available_bytes);

// Memory this process could still use: Linux's MemAvailable, else the free physical pages.
// 0 when unknown. Thread-safe.
uint64_t available_memory_bytes();

}  // namespace mirror
