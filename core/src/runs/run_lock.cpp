#include "mirror/runs/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <utility>

#include "mirror/runs/run_writer.h"  // host_name
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

RunLock::RunLock(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kRunLockFile).string();
  // O_NOFOLLOW and O_NONBLOCK: a stranger's link or FIFO in its place is not followed or waited on.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd_ < 0)
    throw ConfigError(fmt::format("{}: cannot make the lock that keeps its run to one writer ({})", terminal_text(path),
                                  std::strerror(errno)));
  // flock, not fcntl: a lock of the open file (released when it is closed, by the kernel at exit),
  // not of the process (which any close of the file by any thread would drop).
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    if (e != EWOULDBLOCK)
      throw ConfigError(fmt::format("{}: cannot lock it ({})", terminal_text(path), std::strerror(e)));
    // The holder names itself just after it locks: a moment's wait for a name not yet written.
    std::string who;
    for (int tries = 0; tries < 20 && who.empty(); ++tries) {
      if (tries > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      UntrustedFile holder(path, 256);
      who = holder.read_all();
      while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    }
    throw RunError(fmt::format("{} is being written by {}; a run has one writer at a time. Wait for it to end, or "
                               "stop it, then resume", terminal_text(dir),
                               who.empty() ? std::string("another process") : terminal_text(who)));
  }
  // Only says who holds it (the lock is the flock): written over the last holder's name, then cut
  // to length, so that a reader never finds it empty once a name was there.
  const std::string me = fmt::format("process {} on host {}\n", ::getpid(), host_name());
  if (::pwrite(fd_, me.data(), me.size(), 0) == static_cast<ssize_t>(me.size())) {
    [[maybe_unused]] const int cut = ::ftruncate(fd_, static_cast<off_t>(me.size()));
  }
}

RunLock::~RunLock() {
  if (fd_ >= 0) ::close(fd_);
}

RunLock::RunLock(RunLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

}  // namespace mirror
