// Where a trace may be written: only over nothing or a regular file. The atomic write renames a
// new file over the path, so a device (/dev/full, as root), a pipe or a socket there would be
// replaced by a regular file.
// Tested by tests/core/runs/test_trace.cpp.
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "mirror/runs/trace.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
const char* kind_of(std::filesystem::file_type t) {
  switch (t) {
    case std::filesystem::file_type::directory: return "a folder";
    case std::filesystem::file_type::block: return "a block device";
    case std::filesystem::file_type::character: return "a character device";
    case std::filesystem::file_type::fifo: return "a named pipe";
    case std::filesystem::file_type::socket: return "a socket";
    default: return "not a regular file";
  }
}
}  // namespace

std::string trace_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status here = fs::symlink_status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    throw ConfigError(fmt::format("{}: cannot look at it: {}", path, ec.message()));
  if (!fs::exists(here)) return path;
  if (fs::is_regular_file(here)) return path;
  if (!fs::is_symlink(here))
    throw ConfigError(fmt::format("{}: is {}, not a file a trace can replace; give a file's name", path,
                                  kind_of(here.type())));
  const fs::file_status target = fs::status(path, ec);
  if (!fs::exists(target))
    throw ConfigError(fmt::format("{}: is a link to nothing; give a file's name", path));
  if (!fs::is_regular_file(target))
    throw ConfigError(fmt::format("{}: links to {}, not a file a trace can replace; give a file's name", path,
                                  kind_of(target.type())));
  const fs::path real = fs::canonical(path, ec);
  if (ec) throw ConfigError(fmt::format("{}: cannot follow the link: {}", path, ec.message()));
  return real.string();
}

}  // namespace mirror
