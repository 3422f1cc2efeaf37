// Own data whose files are not what their names say: a FIFO named x.png, a link to /dev/zero, a
// sparse file of 2.5 GB that holds nothing on disk, an unreadable file. Each is refused at once,
// before a byte of it is read, with the file named and why, by images, texts and tables alike.
// (Images once hung for ever on the FIFO, read /dev/zero until memory ran out and spent 4.1 GB
// and 28 s on the sparse file.)
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "mirror/data/dataset_options.h"
#include "mirror/data/registry.h"
#include "mirror/util/error.h"
#include "strange_files.h"
#include "test_helpers.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;
using testing::put_strange;
using testing::Strange;
using testing::TempDir;
using testing::write_file;

using testing::kAtOnce;
constexpr uint64_t kSparseBytes = uint64_t{5} << 29;  // 2.5 GiB

// A 2 x 2 grey 24-bit BMP, written by hand.
std::string bmp(unsigned char level) {
  const auto u32 = [](uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; };
  const auto u16 = [](uint16_t v) { return std::string{char(v), char(v >> 8)}; };
  const std::string row = std::string(6, static_cast<char>(level)) + std::string(2, '\0');  // padded to 4 bytes
  const std::string pixels = row + row;
  return "BM" + u32(54 + static_cast<uint32_t>(pixels.size())) + u32(0) + u32(54) + u32(40) + u32(2) + u32(2) + u16(1) +
         u16(24) + u32(0) + u32(static_cast<uint32_t>(pixels.size())) + u32(2835) + u32(2835) + u32(0) + u32(0) + pixels;
}

// Two classes of three images (or texts) each, under `dir`.
DatasetOptions own_folder(const TempDir& dir, const std::string& kind) {
  for (const char* c : {"cats", "dogs"}) {
    fs::create_directories(dir.path() / c);
    for (int i = 0; i < 3; ++i)
      write_file(dir.path() / c / (std::to_string(i) + (kind == "images" ? ".bmp" : ".txt")),
                 kind == "images" ? bmp(static_cast<unsigned char>(40 * i + (c[0] == 'c' ? 0 : 20)))
                                  : std::string(c) + " text number " + std::to_string(i));
  }
  DatasetOptions o;
  o.name = kind;
  o.data_dir = dir.str();
  if (kind == "images") o.image_height = o.image_width = 4;
  return o;
}

// What loading `o` refuses, and how long it took (a FIFO is fed after 3 s, so that a loader that
// waits on it fails here instead of hanging the test).
std::pair<std::string, double> refusal(const DatasetOptions& o, const fs::path& strange, Strange kind) {
  std::string why;
  std::optional<testing::FifoUnblocker> unblock;
  if (kind == Strange::kFifo) unblock.emplace(strange, std::chrono::milliseconds(3000));
  const double seconds = testing::seconds_of([&] {
    try {
      load_dataset(o);
    } catch (const DataError& e) {
      why = e.what();
    }
  });
  return {why, seconds};
}

TEST(StrangeOwnFiles, ImagesRefuseAFifoALinkToADeviceAndASparseFileAtOnceNamingThem) {
  for (const bool follow_links : {false, true}) {
    for (const Strange kind : testing::kStrangeKinds) {
      TempDir dir;
      DatasetOptions o = own_folder(dir, "images");
      o.follow_links = follow_links;
      ASSERT_NO_THROW(load_dataset(o));
      const fs::path strange = dir.path() / "cats" / "x.png";
      put_strange(strange, kind, kSparseBytes);
      const auto [why, seconds] = refusal(o, strange, kind);
      SCOPED_TRACE(std::string(testing::strange_name(kind)) + (follow_links ? ", following links" : ""));
      EXPECT_NE(why.find(strange.string()), std::string::npos) << why;
      EXPECT_NE(why.find(testing::strange_refusal(kind)), std::string::npos) << why;
      EXPECT_LT(seconds, kAtOnce) << why;
    }
  }
}

TEST(StrangeOwnFiles, ASparseImageIsRefusedByTheSizeTheFileSystemGives) {
  TempDir dir;
  const DatasetOptions o = own_folder(dir, "images");
  const fs::path strange = dir.path() / "dogs" / "big.png";
  put_strange(strange, Strange::kSparse, kSparseBytes);
  EXPECT_EQ(refusal(o, strange, Strange::kSparse).first, strange.string() + " is 2.5 GiB; at most 512 MiB is read");
}

TEST(StrangeOwnFiles, TextsAndTablesRefuseTheSameFilesAtOnce) {
  for (const Strange kind : testing::kStrangeKinds) {
    SCOPED_TRACE(testing::strange_name(kind));
    TempDir dir;
    const DatasetOptions texts = own_folder(dir, "texts");
    ASSERT_NO_THROW(load_dataset(texts));
    const fs::path strange_text = dir.path() / "dogs" / "x.txt";
    put_strange(strange_text, kind, kSparseBytes);
    auto [why, seconds] = refusal(texts, strange_text, kind);
    EXPECT_NE(why.find(strange_text.string()), std::string::npos) << why;
    EXPECT_LT(seconds, kAtOnce) << why;

    DatasetOptions table;
    table.name = "table";
    table.data_dir = dir / "points.csv";
    put_strange(table.data_dir, kind, kSparseBytes);
    std::tie(why, seconds) = refusal(table, table.data_dir, kind);
    EXPECT_NE(why.find(table.data_dir), std::string::npos) << why;
    EXPECT_LT(seconds, kAtOnce) << why;
  }
}

TEST(StrangeOwnFiles, ALineFeedInANameCannotForgeALineOfOutput) {
  TempDir dir;
  DatasetOptions o = own_folder(dir, "images");
  const std::string forged = "x\nmirrortrain: Finished OK";
  write_file(dir.path() / "cats" / (forged + ".png"), "not an image");
  std::string why = testing::data_error([&] { load_dataset(o); });
  EXPECT_NE(why.find("x\\nmirrortrain: Finished OK.png"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  fs::remove(dir.path() / "cats" / (forged + ".png"));
  put_strange(dir.path() / "cats" / (forged + ".png"), Strange::kFifo, 0);
  why = testing::data_error([&] { load_dataset(o); });
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  fs::remove(dir.path() / "cats" / (forged + ".png"));
  fs::create_directories(dir.path() / forged);  // a class folder with no images
  why = testing::data_error([&] { load_dataset(o); });
  EXPECT_NE(why.find("the class folder 'x\\nmirrortrain: Finished OK' holds no images"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

// Runs `f` on a thread of its own without the capabilities that let root read any file
// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) in its effective set. Capabilities belong to a thread,
// so the rest of the process keeps them, and the threads it starts inherit the lack. False when
// they could not be dropped.
bool without_reading_everything(const std::function<void()>& f) {
  bool dropped = false;
  std::thread t([&] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) return;
    for (const int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH}) data[cap / 32].effective &= ~(1u << (cap % 32));
    if (::syscall(SYS_capset, &header, data) != 0) return;
    dropped = true;
    f();
  });
  t.join();
  return dropped;
}

TEST(StrangeOwnFiles, AnUnreadableImageIsNamedWithTheSystemsReason) {
  TempDir dir;
  const DatasetOptions o = own_folder(dir, "images");
  const fs::path locked = dir.path() / "cats" / "0.bmp";
  fs::permissions(locked, fs::perms::none);
  std::string why;
  const auto load = [&] { why = testing::data_error([&] { load_dataset(o); }); };
  if (::geteuid() != 0) load();
  else if (!without_reading_everything(load)) GTEST_SKIP() << "root, and its capabilities to read any file cannot be dropped here";
  EXPECT_NE(why.find(locked.string() + " cannot be opened (Permission denied)"), std::string::npos) << why;
}

}  // namespace
}  // namespace mirror
