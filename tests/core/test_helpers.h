#pragma once
// Small helpers shared by the core tests.

#include <ftw.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "mirror/strategy/communicator.h"
#include "mirror/util/error.h"
#include "mirror/train/config.h"
#include "points_run.h"

namespace mirror::testing {

// The message of the exception of type E that `f` throws; empty when it throws none.
template <typename E>
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

// The message of the DataError `f` throws; empty when it throws none.
inline std::string data_error(const std::function<void()>& f) { return error_of<DataError>(f); }

// Removes `path` and everything under it, like std::filesystem::remove_all. Through POSIX: a pip
// torch's libtorch.so (2.11) exports its own std::filesystem::remove_all, which crashed when the
// tests bound to it.
inline void remove_tree(const std::filesystem::path& path) {
  nftw(path.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return std::remove(p); }, 16,
       FTW_DEPTH | FTW_PHYS);
}

// Writes `text` to `path` as is (binary), replacing the file.
inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}
// The whole file at `path` (empty when it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh directory under the system's temp folder, removed with everything in it at scope end.
class TempDir {
 public:
  TempDir()
      : path_(std::filesystem::temp_directory_path() /
              ("mirror-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { remove_tree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  std::string str() const { return path_.string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};


// The multi-replica communicators every mirrored test runs against: whatever the registry says
// can reduce across CPU replicas here (a new backend joins the tests by registering), with
// gtest-friendly names ("shared-memory" -> "shared_memory").
inline auto multi_replica_communicators() {
  return ::testing::ValuesIn(CommunicatorRegistry::instance().available_multi_replica({}));
}
inline std::string communicator_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

}  // namespace mirror::testing
