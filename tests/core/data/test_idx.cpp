// IDX files (MNIST, Fashion-MNIST): raw or gzip, and every way a file can lie.
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "mirror/data/batch.h"
#include "mirror/data/idx.h"
#include "mirror/data/registry.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::data_error;
namespace fs = std::filesystem;

namespace {
// Bytes of an IDX file of unsigned bytes with the given dims; `payload` values are i % 251.
std::string idx_bytes(const std::vector<uint32_t>& dims, int64_t payload) {
  std::string s = {0, 0, 0x08, static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((d >> shift) & 0xff));
  for (int64_t i = 0; i < payload; ++i) s.push_back(static_cast<char>(i % 251));
  return s;
}

// TempDir with a writer of fixture files, plain or gzip-compressed.
class FixtureDir : public mirror::testing::TempDir {
 public:
  std::string file(const std::string& name, const std::string& bytes, bool gzip = false) const {
    const auto p = (*this) / name;
    if (gzip) {
      gzFile f = gzopen(p.c_str(), "wb");
      gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
      gzclose(f);
    } else {
      std::ofstream(p, std::ios::binary) << bytes;
    }
    return p;
  }
};

void write_mnist_layout(const FixtureDir& dir, bool gzip, int64_t train, int64_t test, int64_t image_bytes_short = 0) {
  const std::string ext = gzip ? ".gz" : "";
  dir.file("train-images-idx3-ubyte" + ext, idx_bytes({uint32_t(train), 28, 28}, train * 784 - image_bytes_short), gzip);
  dir.file("train-labels-idx1-ubyte" + ext, idx_bytes({uint32_t(train)}, 0) + std::string(size_t(train), '\x03'), gzip);
  dir.file("t10k-images-idx3-ubyte" + ext, idx_bytes({uint32_t(test), 28, 28}, test * 784), gzip);
  dir.file("t10k-labels-idx1-ubyte" + ext, idx_bytes({uint32_t(test)}, 0) + std::string(size_t(test), '\x07'), gzip);
}
}  // namespace

TEST(Idx, ReadsRawAndGzipAlike) {
  FixtureDir dir;
  const auto bytes = idx_bytes({3, 4, 5}, 60);
  for (bool gz : {false, true}) {
    auto t = read_idx_ubyte(dir.file(gz ? "a.gz" : "a", bytes, gz));
    EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 4, 5}));
    EXPECT_EQ(t.flatten()[59].item<int>(), 59);
  }
}

TEST(Idx, LyingOrBrokenFilesGiveClearErrors) {
  FixtureDir dir;
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("short", idx_bytes({10, 28, 28}, 500))); })
                .find("declares 7840 values but the file holds 500"),
            std::string::npos);
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("long", idx_bytes({2, 2}, 5))); }).find("more data than the header"),
            std::string::npos);
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("magic", "PK\x03\x04garbage")); }).find("not an IDX file"),
            std::string::npos);
  std::string floats = idx_bytes({2}, 8);
  floats[2] = 0x0d;
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("floats", floats)); }).find("expected unsigned bytes"), std::string::npos);
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("huge", idx_bytes({65535, 65535, 65535}, 0))); }).find("corrupt"),
            std::string::npos);
  // A gzip stream cut in half.
  std::string gz_path = dir.file("cut.gz", idx_bytes({100, 28, 28}, 78400), true);
  const auto size = fs::file_size(gz_path);
  fs::resize_file(gz_path, size / 2);
  EXPECT_FALSE(data_error([&] { read_idx_ubyte(gz_path); }).empty());
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.str() + "/absent"); }).find("no such file"), std::string::npos);
}

// Headers that lie about their sizes (found by fuzzing): caught before anything is allocated.
TEST(Idx, HeadersThatOverflowOrDeclareGigabytesAllocateNothing) {
  FixtureDir dir;
  // 0 images of 4294967295 x 4294967295: used to pass as an empty file and fail later inside LibTorch.
  EXPECT_NE(data_error([&] { read_idx_ubyte(dir.file("zero", idx_bytes({0, 0xffffffff, 0xffffffff}, 0))); })
                .find("header declares sizes of more than"),
            std::string::npos);
  // 4 x 2^31 x 2^31 is 2^64: the product wrapped around to 0 and passed the size check.
  const std::string wrap = data_error([&] { read_idx_ubyte(dir.file("wrap", idx_bytes({4, 0x80000000, 0x80000000}, 0))); });
  EXPECT_NE(wrap.find("4 x 2147483648 x 2147483648"), std::string::npos) << wrap;
  EXPECT_NE(wrap.find("wrap"), std::string::npos) << "the message names the file: " << wrap;
  // A 12-byte header declaring 4 GiB: with 1 GiB of address space to spare the reader must still say the
  // file is short (it used to allocate the 4 GiB first, and fail inside LibTorch).
  const std::string big = dir.file("big", idx_bytes({1, 65536, 65536}, 100));
  const pid_t child = ::fork();
  if (child == 0) {
    // 1 GiB more than this process already has (its thread arenas and libraries vary by machine).
    std::ifstream statm("/proc/self/statm");
    rlim_t pages = 0;
    statm >> pages;
    rlimit limit{};
    ::getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
    ::setrlimit(RLIMIT_AS, &limit);
    try {
      read_idx_ubyte(big);
    } catch (const DataError& e) {
      ::_exit(std::string(e.what()).find("declares 4294967296 values but the file holds 100") != std::string::npos ? 0 : 2);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(4);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: another DataError; 3: another exception (an allocation); 4: no error";
}

TEST(Idx, MnistLayoutDirectoryLoadsAsKerasShapedDataset) {
  for (bool gz : {false, true}) {
    FixtureDir dir;
    write_mnist_layout(dir, gz, 20, 6);
    auto d = load_idx_directory("fashion-mnist", dir.str(), {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"});
    EXPECT_EQ(d->info().input_shape, (std::vector<int64_t>{28, 28, 1}));
    EXPECT_EQ(d->size(Split::kTrain), 20);
    EXPECT_EQ(d->size(Split::kValidation), 6);
    EXPECT_EQ(d->info().num_classes, 10);
    const auto b = d->gather(Split::kTrain, {0, 19});
    EXPECT_EQ(b.x.sizes(), (std::vector<int64_t>{2, 28, 28, 1}));
    EXPECT_FLOAT_EQ(b.x.flatten()[5].item<float>(), 5.0f / 255.0f);
    EXPECT_EQ(b.y[1].item<int64_t>(), 3);
    EXPECT_EQ(d->class_counts(Split::kValidation)[7], 6);
  }
}

TEST(Idx, TruncatedImagesOrMissingMembersAreReported) {
  FixtureDir dir;
  write_mnist_layout(dir, true, 20, 6, /*image_bytes_short=*/100);
  EXPECT_NE(data_error([&] { load_idx_directory("mnist", dir.str(), {}); }).find("truncated"), std::string::npos);
  FixtureDir empty;
  const auto e = data_error([&] { load_idx_directory("mnist", empty.str(), {}); });
  EXPECT_NE(e.find("train-images-idx3-ubyte"), std::string::npos) << e;
  DatasetOptions o;
  o.name = "fashion-mnist";
  o.data_dir = empty.str();
  EXPECT_THROW(load_dataset(o), DataError);
}
