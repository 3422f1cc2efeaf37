#include "mirror/util/untrusted_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

std::string readable_size(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  if (bytes < kKiB) return fmt::format("{} bytes", bytes);
  const uint64_t unit = bytes < kMiB ? kKiB : bytes < kGiB ? kMiB : kGiB;
  const char* name = unit == kKiB ? "KiB" : unit == kMiB ? "MiB" : "GiB";
  if (bytes % unit == 0) return fmt::format("{} {}", bytes / unit, name);
  return fmt::format("{:.1f} {}", static_cast<double>(bytes) / static_cast<double>(unit), name);
}

namespace {
// What a file that is not a regular one is, in words.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}
}  // namespace

UntrustedFile::UntrustedFile(const std::string& path, uint64_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one; a
  // regular file reads the same with or without it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    const int e = errno;
    missing_ = e == ENOENT || e == ENOTDIR;
    fail(missing_ ? "does not exist" : fmt::format("cannot be opened ({})", std::strerror(e)));
    return;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    fail(fmt::format("cannot be read ({})", std::strerror(errno)));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    folder_ = S_ISDIR(st.st_mode);
    fail(fmt::format("is {}, not a regular file", kind_of(st.st_mode)));
    return;
  }
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    too_large_ = true;
    fail(fmt::format("is {}; at most {} is read", readable_size(size_), readable_size(max_bytes)));
  }
}

UntrustedFile::~UntrustedFile() {
  if (fd_ >= 0) ::close(fd_);
}

UntrustedFile::UntrustedFile(UntrustedFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      size_(other.size_),
      missing_(other.missing_),
      too_large_(other.too_large_),
      folder_(other.folder_),
      problem_(std::move(other.problem_)) {}

UntrustedFile& UntrustedFile::operator=(UntrustedFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    missing_ = other.missing_;
    too_large_ = other.too_large_;
    folder_ = other.folder_;
    problem_ = std::move(other.problem_);
  }
  return *this;
}

void UntrustedFile::fail(std::string why) {
  problem_ = terminal_text(why);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string UntrustedFile::read(uint64_t offset, uint64_t n) {
  std::string out;
  read(offset, n, out);
  return out;
}

void UntrustedFile::read(uint64_t offset, uint64_t n, std::string& out) {
  out.clear();
  if (fd_ < 0 || offset >= size_) return;
  n = std::min(n, size_ - offset);
  out.resize(static_cast<size_t>(n));
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t r = ::pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      out.resize(got);
      fail(fmt::format("cannot be read ({})", std::strerror(e)));
      return;
    }
    if (r == 0) break;  // shortened since it was opened
    got += static_cast<size_t>(r);
  }
  out.resize(got);
}

void check_before_opening(const std::string& path, uint64_t max_bytes, const char* as_what) {
  if (const UntrustedFile f(path, max_bytes); !f.ok())
    throw DataError(fmt::format("{} {}: not read as {}", terminal_text(path), f.problem(), as_what));
}

std::string read_untrusted_file(const std::string& path, uint64_t max_bytes) {
  UntrustedFile f(path, max_bytes);
  std::string bytes = f.read_all();
  if (!f.ok()) throw DataError(fmt::format("{} {}", terminal_text(path), f.problem()));
  return bytes;
}

}  // namespace mirror
