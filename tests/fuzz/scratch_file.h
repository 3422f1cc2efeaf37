#pragma once
// For fuzz targets whose reader takes a path: the input written to a file of this process's own
// under /dev/shm (memory, so a run of millions of inputs does not wear a disk), removed at exit.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace mirror::fuzz {

class ScratchDir {
 public:
  ScratchDir() {
    const std::filesystem::path shm = "/dev/shm";
    const auto base = std::filesystem::is_directory(shm) ? shm : std::filesystem::temp_directory_path();
    dir_ = (base / ("mirror-fuzz-" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

  // Writes `size` bytes to `name` in the scratch folder, replacing what was there; its path.
  std::string put(const std::string& name, const void* data, size_t size) const {
    const std::string path = dir_ + "/" + name;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || (size > 0 && std::fwrite(data, 1, size, f) != size)) __builtin_trap();  // the harness, not the reader
    std::fclose(f);
    return path;
  }
  std::string put(const std::string& name, const std::string& bytes) const { return put(name, bytes.data(), bytes.size()); }
  void remove(const std::string& name) const { std::remove((dir_ + "/" + name).c_str()); }

 private:
  std::string dir_;
};

// One per process, for the whole fuzzing run.
inline const ScratchDir& scratch() {
  static const ScratchDir dir;
  return dir;
}

}  // namespace mirror::fuzz
