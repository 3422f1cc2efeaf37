// The "images" dataset: Keras' image_dataset_from_directory on a folder of the user's images,
// decoded once (image_decode.cpp) into 8-bit tensors that Dataset scales to [0, 1] per batch.
#include "mirror/data/image_folder.h"

#include <fmt/format.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/directory_index.h"
#include "mirror/data/image_decode.h"
#include "mirror/data/load_progress.h"
#include "mirror/util/error.h"
#include "mirror/util/threads.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

namespace {
namespace fs = std::filesystem;

constexpr int64_t kDefaultImageSide = 256;   // Keras' image_size=(256, 256)
constexpr int64_t kLargestImageSide = 4096;  // a side larger than this is a typo, not a wish
constexpr int kMaxDecodeThreads = 8;

int channels_of(const std::string& color_mode) {
  if (color_mode.empty() || color_mode == "rgb") return 3;
  if (color_mode == "grayscale") return 1;
  if (color_mode == "rgba") return 4;
  throw ConfigError(fmt::format("color_mode must be grayscale, rgb or rgba, got '{}'", color_mode));
}

int64_t side_of(int64_t requested, const char* what) {
  if (requested == 0) return kDefaultImageSide;
  if (requested < 1 || requested > kLargestImageSide)
    throw ConfigError(fmt::format("image {} must be in [1, {}], got {}", what, kLargestImageSide, requested));
  return requested;
}

// A FIFO, a link to a device or a sparse file of gigabytes is refused before a byte is read.
std::string read_image_file(const std::string& path) { return read_untrusted_file(path, kMaxImageFileBytes); }

std::string gib_text(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

// Where one file's pixels go: row `row` of `x` (uint8, N x H x W x C).
struct DecodeJob {
  size_t file;
  uint8_t* out;
};

// Decodes every job on a few threads; this thread reports progress and rethrows the failure of
// the first file (in job order) that failed, so the message does not depend on thread timing.
void decode_all(const DirectoryIndex& index, const std::vector<DecodeJob>& jobs, int channels, int64_t height,
                int64_t width, bool crop, const std::string& what) {
  const size_t n = jobs.size();
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable changed;
  size_t failed_at = n;              // guarded by mutex
  std::exception_ptr failure;        // guarded by mutex
  auto work = [&] {
    for (size_t j = next++; j < n && !stop; j = next++) {
      try {
        const std::string& path = index.files[jobs[j].file];
        const std::string bytes = read_image_file(path);
        const DecodedImage image = decode_image(bytes.data(), bytes.size(), channels, terminal_text(path));
        const CropWindow window = crop ? keras_crop_window(image.height, image.width, height, width)
                                       : CropWindow{0, 0, image.height, image.width};
        resize_bilinear_u8(image, window, height, width, jobs[j].out);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (j < failed_at) {
          failed_at = j;
          failure = std::current_exception();
        }
      }
      ++done;
      changed.notify_one();
    }
  };
  const int threads = static_cast<int>(std::clamp<size_t>(n, 1, static_cast<size_t>(std::min(usable_cores(), kMaxDecodeThreads))));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work);
  auto join_all = [&] {
    stop = true;
    for (auto& t : pool) t.join();
    pool.clear();
  };
  size_t reported = 0;
  try {
    report_load_progress(0, static_cast<int64_t>(n), what);
    std::unique_lock<std::mutex> lock(mutex);
    while (done < n && failed_at == n) {
      changed.wait_for(lock, std::chrono::milliseconds(100));
      const size_t now = done;
      if (now != reported) {
        reported = now;
        lock.unlock();
        report_load_progress(static_cast<int64_t>(now), static_cast<int64_t>(n), what);  // may throw: cancels
        lock.lock();
      }
    }
  } catch (...) {
    join_all();
    throw;
  }
  join_all();
  if (failure) std::rethrow_exception(failure);
  if (reported != n) report_load_progress(static_cast<int64_t>(n), static_cast<int64_t>(n), what);
}
}  // namespace

const std::vector<std::string>& image_extensions() {
  static const std::vector<std::string> extensions = {".bmp", ".gif", ".jpeg", ".jpg", ".png"};
  return extensions;
}

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

std::string image_memory_problem(int64_t count, int64_t height, int64_t width, int64_t channels,
                                 uint64_t available_bytes) {
  if (available_bytes == 0 || count <= 0) return {};  // unknown: try
  const double needed = static_cast<double>(count) * static_cast<double>(height) * static_cast<double>(width) *
                        static_cast<double>(channels);
  const double budget = static_cast<double>(available_bytes) / 2;
  if (needed <= budget) return {};
  const auto side = static_cast<int64_t>(std::floor(std::sqrt(budget / (static_cast<double>(count) * channels))));
  const std::string fits = side >= 1 ? fmt::format("--image-size {}x{} would fit", side, side)
                                     : std::string("no image size would fit; use fewer images");
  return fmt::format("{} images of {} x {} x {} take {} decoded, more than half of the {} of memory available; {} "
                     "(streaming images from disk is not supported)",
                     count, height, width, channels, gib_text(needed), gib_text(static_cast<double>(available_bytes)), fits);
}

std::shared_ptr<const Dataset> load_image_folder(const DatasetOptions& o) {
  if (o.data_dir.empty())
    throw ConfigError("the images dataset reads a folder: pass --data-dir DIR (one subfolder of images per class)");
  const int channels = channels_of(o.color_mode);
  const int64_t height = side_of(o.image_height, "height");
  const int64_t width = side_of(o.image_width, "width");
  const double validation_split = o.validation_split < 0 ? 0.2 : o.validation_split;
  const std::string& dir = o.data_dir;

  DirectoryIndex index = index_directory(dir, image_extensions(), o.follow_links);
  require_files_in_every_class(index, dir, "images", image_extensions());
  const auto n = static_cast<int64_t>(index.files.size());
  const KerasSplit split = keras_split(n, o.seed, validation_split);
  if (std::string problem = image_memory_problem(n, height, width, channels, available_memory_bytes());
      !problem.empty())
    throw DataError(fmt::format("{}: {}", dir, problem));

  const auto sizes = [&](size_t count) { return std::vector<int64_t>{static_cast<int64_t>(count), height, width, channels}; };
  torch::Tensor x_train = torch::empty(sizes(split.train.size()), torch::kUInt8);
  torch::Tensor x_val = torch::empty(sizes(split.validation.size()), torch::kUInt8);
  const int64_t image_bytes = height * width * channels;
  std::vector<DecodeJob> jobs;
  std::vector<int64_t> y_train, y_val;
  for (size_t i = 0; i < split.train.size(); ++i) {
    const auto file = static_cast<size_t>(split.train[i]);
    jobs.push_back({file, x_train.data_ptr<uint8_t>() + static_cast<int64_t>(i) * image_bytes});
    y_train.push_back(index.labels[file]);
  }
  for (size_t i = 0; i < split.validation.size(); ++i) {
    const auto file = static_cast<size_t>(split.validation[i]);
    jobs.push_back({file, x_val.data_ptr<uint8_t>() + static_cast<int64_t>(i) * image_bytes});
    y_val.push_back(index.labels[file]);
  }
  decode_all(index, jobs, channels, height, width, o.crop_to_aspect_ratio, fmt::format("reading images from {}", dir));

  DatasetInfo info;
  info.name = o.name.empty() ? "images" : o.name;
  info.source = dir;
  info.input_shape = {height, width, channels};
  info.kind = InputKind::kFloat;
  info.num_classes = static_cast<int64_t>(index.class_names.size());
  info.class_names = index.class_names;
  info.file_count = n;
  info.content_hash = content_hash_of_files(index.files, dir, kMaxImageFileBytes);  // a second read, from the page cache
  return std::make_shared<const Dataset>(std::move(info), std::move(x_train), torch::tensor(y_train, torch::kInt64),
                                         std::move(x_val), torch::tensor(y_val, torch::kInt64));
}

DatasetEntry images_entry() {
  return {
      .name = "images",
      .summary = "your own images: a folder with one subfolder per class (PNG, JPEG, BMP, GIF), as Keras' "
                 "image_dataset_from_directory reads it",
      .default_dir = "",
      .uses = {.data_dir = true, .seed = true, .validation_split = true, .image_size = true, .color_mode = true,
               .crop_to_aspect_ratio = true, .follow_links = true},
      .missing =
          [](const DatasetOptions& o) {
            std::error_code ec;
            if (o.data_dir.empty()) return std::string("no folder given (--data-dir DIR, one subfolder per class)");
            if (!fs::is_directory(o.data_dir, ec)) return fmt::format("{} is not a folder", o.data_dir);
            return std::string();
          },
      .load = [](const DatasetOptions& o) { return load_image_folder(o); },
  };
}

}  // namespace mirror
