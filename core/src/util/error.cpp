#include "mirror/util/error.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <filesystem>

namespace mirror {

std::string describe_exception(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

std::string disk_full_hint(const std::string& path) {
  namespace fs = std::filesystem;
  // The nearest folder that exists: the file itself may be gone (a temp file removed on failure).
  fs::path dir = fs::path(path).parent_path();
  std::error_code ec;
  while (!dir.empty() && !fs::is_directory(dir, ec)) dir = dir.parent_path();
  if (dir.empty()) dir = ".";
  const auto space = fs::space(dir, ec);
  constexpr std::uintmax_t kNearlyFull = 1 << 20;  // less than a checkpoint of most models
  if (ec || space.available >= kNearlyFull) return "";
  return fmt::format(" (the disk holding {} is full: {} KiB free)", dir.string(), space.available / 1024);
}

}  // namespace mirror
