#pragma once
// The one way a file the program did not write is opened to be read: a run's records in a shared
// runs folder, a model or lesson someone sent, the files of a person's own dataset. What is opened
// is checked before a byte is read: the open never blocks (a FIFO named run.json cannot stall a
// listing), only a regular file is read (a link to /dev/zero or a terminal is refused, not read
// until memory runs out), its size as the file system gives it is held against a limit first (a
// sparse file of gigabytes that holds 4 KB on disk is refused unread), and reads never go past
// that size. Light: no torch. Thread-safe per object.

#include <cstdint>
#include <string>

namespace mirror {

// A run's record file (metrics.jsonl, timeline.jsonl, evaluations.jsonl, TensorBoard events)
// larger than this is refused unread: a line a step, it would be millions of steps.
inline constexpr uint64_t kMaxRecordFileBytes = uint64_t{4} << 30;

// A size in the unit a person reads it in: "512 bytes", "64 KiB", "12.3 MiB", "2.5 GiB".
std::string readable_size(uint64_t bytes);

class UntrustedFile {
 public:
  // Opens `path` for reading without blocking and checks what it is: a regular file (a symbolic
  // link is followed to one), no larger than `max_bytes`. Never throws: problem() says what was
  // wrong and the file is then closed.
  UntrustedFile(const std::string& path, uint64_t max_bytes);
  ~UntrustedFile();
  UntrustedFile(UntrustedFile&& other) noexcept;
  UntrustedFile& operator=(UntrustedFile&& other) noexcept;
  UntrustedFile(const UntrustedFile&) = delete;
  UntrustedFile& operator=(const UntrustedFile&) = delete;

  bool ok() const { return problem_.empty(); }
  // Empty when all is well, else what is wrong, in words that follow the file's name: "does not
  // exist", "is a FIFO, not a regular file", "is 2.5 GiB; at most 2 GiB is read",
  // "cannot be opened (Permission denied)". Made printable (no control character reaches a terminal).
  const std::string& problem() const { return problem_; }
  bool missing() const { return missing_; }      // the problem is that nothing is at the path
  bool too_large() const { return too_large_; }  // the problem is its size
  bool folder() const { return folder_; }        // the problem is that it is a folder
  uint64_t size() const { return size_; }        // as the file system said when it was opened

  // Up to `n` bytes from `offset`, never past size() (what was appended since the open is not
  // read); fewer where the file ends sooner. On a read error problem() says so and what was
  // read before it is returned.
  std::string read(uint64_t offset, uint64_t n);
  // The same into `out` (replacing what it held), reusing its memory: a reader that goes through a
  // large file in pieces holds one piece, not one per read (under AddressSanitizer each freed
  // piece stays in quarantine).
  void read(uint64_t offset, uint64_t n, std::string& out);
  // The whole file as it was when opened.
  std::string read_all() { return read(0, size_); }

 private:
  void fail(std::string why);
  int fd_ = -1;
  uint64_t size_ = 0;
  bool missing_ = false;
  bool too_large_ = false;
  bool folder_ = false;
  std::string problem_;
};

// For a library that opens the path itself (zlib, libzip, LibTorch's archive reader): throws
// DataError "PATH PROBLEM: not read as AS_WHAT" (the path made printable) unless UntrustedFile
// would read it, so that a FIFO never blocks the library and a device never feeds it.
void check_before_opening(const std::string& path, uint64_t max_bytes, const char* as_what);

// The whole of `path`, at most `max_bytes`. Throws DataError "PATH PROBLEM" (the path made
// printable) when UntrustedFile refuses it or a read fails.
std::string read_untrusted_file(const std::string& path, uint64_t max_bytes);

}  // namespace mirror
