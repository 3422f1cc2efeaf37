#include "mirror/util/home.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "mirror/util/error.h"

namespace mirror {

namespace {
bool absolute(const char* p) { return p && p[0] == '/'; }

// The password database's home for this process's user; empty when it has none.
std::string passwd_home() {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buf(static_cast<size_t>(size > 0 ? size : 16384));
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(getuid(), &entry, buf.data(), buf.size(), &found) != 0 || !found) return "";
  return absolute(found->pw_dir) ? found->pw_dir : "";
}
}  // namespace

std::string home_dir() {
  if (const char* h = std::getenv("HOME"); absolute(h)) return h;
  if (std::string home = passwd_home(); !home.empty()) return home;
  throw ConfigError(fmt::format("HOME is not set and user {} has no home folder in the password database, so there is "
                                "no private place for runs and lessons: set HOME, or MIRROR_RUNS_DIR and "
                                "MIRROR_LESSONS_DIR", getuid()));
}

std::string user_data_dir() {
  if (const char* x = std::getenv("XDG_DATA_HOME"); absolute(x)) return x;
  return home_dir() + "/.local/share";
}

}  // namespace mirror
