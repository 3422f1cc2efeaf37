#pragma once
// Files that are not what their names say, put where a reader expects a file of its own kind: a
// FIFO, a symbolic link to /dev/zero, a sparse file of gigabytes that holds nothing on disk. For the
// tests that every reader of outside files refuses them at once, naming the file.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

namespace mirror::testing {

enum class Strange { kFifo, kLinkToDevice, kSparse };
inline constexpr Strange kStrangeKinds[] = {Strange::kFifo, Strange::kLinkToDevice, Strange::kSparse};

inline const char* strange_name(Strange s) {
  switch (s) {
    case Strange::kFifo: return "a FIFO";
    case Strange::kLinkToDevice: return "a link to /dev/zero";
    case Strange::kSparse: return "a sparse file";
  }
  return "?";
}

// The words a refusal of each must hold.
inline const char* strange_refusal(Strange s) {
  switch (s) {
    case Strange::kFifo: return "is a FIFO, not a regular file";
    case Strange::kLinkToDevice: return "is a character device, not a regular file";
    case Strange::kSparse: return "at most";  // refused for its size, before a byte is read
  }
  return "?";
}

// Replaces whatever is at `path` with a strange file; a sparse one is `sparse_bytes` long.
inline void put_strange(const std::filesystem::path& path, Strange s, uint64_t sparse_bytes) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  switch (s) {
    case Strange::kFifo:
      if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed: " + path.string());
      break;
    case Strange::kLinkToDevice:
      std::filesystem::create_symlink("/dev/zero", path);
      break;
    case Strange::kSparse:
      std::ofstream(path, std::ios::binary).flush();
      std::filesystem::resize_file(path, sparse_bytes);
      break;
  }
}

// While alive, and from `after` on, opens the FIFO at `fifo` for writing whenever a reader waits
// on it, writes a line and closes it: a reader that blocks on the FIFO (the bug these tests look
// for) is let go, so that the test fails with what it read instead of hanging.
class FifoUnblocker {
 public:
  explicit FifoUnblocker(std::filesystem::path fifo, std::chrono::milliseconds after = std::chrono::milliseconds(2000))
      : fifo_(std::move(fifo)), thread_([this, after] {
          const auto start = std::chrono::steady_clock::now();
          while (!stop_) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (std::chrono::steady_clock::now() - start < after) continue;
            const int fd = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // fails while no reader waits
            if (fd < 0) continue;
            const char line[] = "not what a reader of this file expects\n";
            [[maybe_unused]] const ssize_t n = ::write(fd, line, sizeof line - 1);
            ::close(fd);
          }
        }) {}
  ~FifoUnblocker() {
    stop_ = true;
    thread_.join();
  }
  FifoUnblocker(const FifoUnblocker&) = delete;
  FifoUnblocker& operator=(const FifoUnblocker&) = delete;

 private:
  std::filesystem::path fifo_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Seconds within which a reader must refuse such a file: "at once", with room for a loaded machine
// (a reader that waits on a FIFO waits for ever; these tests feed it after 3 s).
inline constexpr double kAtOnce = 2.0;

// Seconds `f` takes.
template <typename F>
double seconds_of(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace mirror::testing
