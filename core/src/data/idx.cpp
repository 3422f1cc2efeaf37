#include "mirror/data/idx.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <vector>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"

namespace mirror {

namespace {
constexpr uint64_t kMaxIdxBytes = uint64_t{1} << 34;  // 16 GiB: far beyond any real IDX file

uint32_t big_endian(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// gzread reads gzip and plain files alike, so one reader serves both.
struct GzFile {
  gzFile f = nullptr;
  explicit GzFile(const std::string& path) : f(gzopen(path.c_str(), "rb")) {}
  ~GzFile() { if (f) gzclose(f); }
  // Reads up to n bytes; throws DataError on a corrupt stream.
  size_t read(void* dst, size_t n, const std::string& path) {
    size_t total = 0;
    auto* out = static_cast<unsigned char*>(dst);
    while (total < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - total, 1u << 30));
      const int got = gzread(f, out + total, chunk);
      if (got < 0) {
        int code = 0;
        const char* msg = gzerror(f, &code);
        throw DataError(fmt::format("{}: corrupt compressed data ({}); download the file again",
                                    path, msg ? msg : "unknown zlib error"));
      }
      if (got == 0) break;
      total += static_cast<size_t>(got);
    }
    return total;
  }
};
}  // namespace

torch::Tensor read_idx_ubyte(const std::string& path) {
  if (!std::filesystem::exists(path)) throw DataError(fmt::format("{}: no such file", path));
  check_before_opening(path, kMaxRecordFileBytes, "an IDX file");  // zlib opens the path itself
  GzFile file(path);
  if (!file.f) throw DataError(fmt::format("{}: cannot open for reading", path));
  unsigned char magic[4];
  if (file.read(magic, 4, path) != 4) throw DataError(fmt::format("{}: too short to be an IDX file", path));
  if (magic[0] != 0 || magic[1] != 0)
    throw DataError(fmt::format("{}: not an IDX file (bad magic number)", path));
  if (magic[2] != 0x08)
    throw DataError(fmt::format("{}: IDX element type 0x{:02x}, expected unsigned bytes (0x08)", path,
                                magic[2]));
  const int dims = magic[3];
  if (dims < 1 || dims > 4) throw DataError(fmt::format("{}: IDX file with {} dimensions", path, dims));
  // Sizes are checked before anything is allocated: each, and the product of those other than 0,
  // stays below kMaxIdxBytes, tested before each multiplication so that it cannot wrap around.
  std::vector<int64_t> shape(dims);
  uint64_t count = 1, nonzero = 1;
  for (int i = 0; i < dims; ++i) {
    unsigned char b[4];
    if (file.read(b, 4, path) != 4) throw DataError(fmt::format("{}: header cut short", path));
    const uint64_t size = big_endian(b);
    shape[i] = static_cast<int64_t>(size);
    if (size > 0 && nonzero > kMaxIdxBytes / size)
      throw DataError(fmt::format("{}: header declares sizes of more than {} bytes ({}); the file is corrupt", path,
                                  kMaxIdxBytes, fmt::join(std::vector<int64_t>(shape.begin(), shape.begin() + i + 1), " x ")));
    if (size > 0) nonzero *= size;
    count *= size;
  }
  // Read in chunks as the data arrives, each as large as what was read so far (64 KiB to 64 MiB):
  // a 12-byte header declaring gigabytes allocates little until the bytes are really there (a
  // gzip stream's size is unknown until it is read).
  constexpr size_t kFirstChunk = size_t{64} << 10, kMaxChunk = size_t{64} << 20;
  std::vector<uint8_t> data;
  while (data.size() < count) {
    const size_t chunk = std::clamp(data.size(), kFirstChunk, kMaxChunk);
    const size_t want = std::min<uint64_t>(chunk, count - data.size());
    const size_t at = data.size();
    data.resize(at + want);
    const size_t got = file.read(data.data() + at, want, path);
    data.resize(at + got);
    if (got < want) break;
  }
  if (data.size() != count)
    throw DataError(fmt::format("{}: header declares {} values but the file holds {}; the file is "
                                "truncated, download it again", path, count, data.size()));
  auto out = torch::empty(shape, torch::kUInt8);
  if (count > 0) std::memcpy(out.data_ptr<uint8_t>(), data.data(), count);
  unsigned char extra;
  if (file.read(&extra, 1, path) != 0)
    throw DataError(fmt::format("{}: more data than the header declares; the file is corrupt", path));
  return out;
}

namespace {
std::string find_member(const std::string& dir, const std::string& stem) {
  for (const char* ext : {".gz", ""}) {
    const auto p = std::filesystem::path(dir) / (stem + ext);
    if (std::filesystem::exists(p)) return p.string();
  }
  throw DataError(fmt::format("{}: no {}[.gz] here; an MNIST-layout directory holds "
                              "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte "
                              "and t10k-labels-idx1-ubyte (optionally .gz)", dir, stem));
}

std::pair<torch::Tensor, torch::Tensor> load_pair(const std::string& dir, const std::string& prefix) {
  const auto images_path = find_member(dir, prefix + "-images-idx3-ubyte");
  const auto labels_path = find_member(dir, prefix + "-labels-idx1-ubyte");
  auto images = read_idx_ubyte(images_path);
  auto labels = read_idx_ubyte(labels_path);
  if (images.dim() != 3) throw DataError(fmt::format("{}: expected 3 dimensions (N, rows, cols)", images_path));
  if (labels.dim() != 1) throw DataError(fmt::format("{}: expected 1 dimension (N)", labels_path));
  if (images.size(0) != labels.size(0))
    throw DataError(fmt::format("{} holds {} images but {} holds {} labels", images_path,
                                images.size(0), labels_path, labels.size(0)));
  // Keras layout: (N, rows, cols, 1), floats in [0, 1].
  auto x = images.to(torch::kFloat32).div_(255.0f).unsqueeze(3).contiguous();
  return {x, labels.to(torch::kInt64)};
}
}  // namespace

std::shared_ptr<const Dataset> load_idx_directory(const std::string& name, const std::string& dir,
                                                  std::vector<std::string> class_names) {
  auto [x_train, y_train] = load_pair(dir, "train");
  auto [x_val, y_val] = load_pair(dir, "t10k");
  DatasetInfo info;
  info.name = name;
  info.source = dir;
  info.input_shape = {x_train.size(1), x_train.size(2), 1};
  info.kind = InputKind::kFloat;
  info.num_classes = std::max<int64_t>(static_cast<int64_t>(class_names.size()),
                                       y_train.max().item<int64_t>() + 1);
  info.class_names = std::move(class_names);
  return std::make_shared<const Dataset>(std::move(info), x_train, y_train, x_val, y_val);
}

}  // namespace mirror
