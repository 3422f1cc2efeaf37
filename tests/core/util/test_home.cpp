// Where a user's runs and lessons go: never a folder shared with other users.
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "mirror/runs/lesson.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/home.h"

using namespace mirror;

namespace {
// Sets (or unsets, with nullopt) an environment variable for the scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value->c_str(), 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::string passwd_home() {
  const passwd* p = getpwuid(getuid());
  return p && p->pw_dir ? p->pw_dir : "";
}
}  // namespace

TEST(Home, WithoutHomeTheUsersOwnHomeIsUsedNotTmp) {
  const std::string expected = passwd_home();
  if (expected.empty() || expected[0] != '/') GTEST_SKIP() << "this user has no home in the password database";
  ScopedEnv home("HOME", std::nullopt), xdg("XDG_DATA_HOME", std::nullopt), runs("MIRROR_RUNS_DIR", std::nullopt),
      lessons("MIRROR_LESSONS_DIR", std::nullopt);
  EXPECT_EQ(home_dir(), expected);
  EXPECT_EQ(default_runs_root(), expected + "/.local/share/mirror-workbench/runs");
  EXPECT_EQ(lessons_dir(), expected + "/.local/share/mirror-workbench/lessons");
  ScopedEnv empty("HOME", "");
  EXPECT_EQ(home_dir(), expected);
}

TEST(Home, RelativeHomeAndDataFoldersAreIgnored) {
  const std::string expected = passwd_home();
  if (expected.empty() || expected[0] != '/') GTEST_SKIP() << "this user has no home in the password database";
  ScopedEnv home("HOME", "relative/home"), xdg("XDG_DATA_HOME", "relative/data"), runs("MIRROR_RUNS_DIR", std::nullopt);
  EXPECT_EQ(default_runs_root(), expected + "/.local/share/mirror-workbench/runs");
}

TEST(Home, VariablesStillDecideWhenSet) {
  ScopedEnv home("HOME", "/home/someone"), xdg("XDG_DATA_HOME", std::nullopt), runs("MIRROR_RUNS_DIR", std::nullopt);
  EXPECT_EQ(default_runs_root(), "/home/someone/.local/share/mirror-workbench/runs");
  ScopedEnv data("XDG_DATA_HOME", "/data/someone");
  EXPECT_EQ(default_runs_root(), "/data/someone/mirror-workbench/runs");
}
