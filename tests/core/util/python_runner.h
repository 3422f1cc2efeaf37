#pragma once
// Running Python 3 from a core test, to check generated Python text the way Python reads it.
// Tests that use it skip themselves where python3 (or a module they need) is missing.

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "test_helpers.h"

namespace mirror::testing {

// `bytes` in lower-case hex, as Python's bytes.hex() writes them.
inline std::string hex_bytes(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// Python 3: Debian's (with python3-torch) where there is one, else the first on PATH.
inline std::string python3() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

// Whether python3 runs here and can import `module` ("torch"; empty: none).
inline bool python_has(const std::string& module = "") {
  const std::string code = module.empty() ? "pass" : "import " + module;
  return std::system((python3() + " -c '" + code + "' >/dev/null 2>&1").c_str()) == 0;
}

// Runs `script` (Python source, written to a file in `dir`) with `arg`; its stdout, or nullopt
// when it exits with an error (its stderr then goes to the test's output).
inline std::optional<std::string> run_python(const std::filesystem::path& dir, const std::string& script,
                                             const std::string& arg = "") {
  const auto path = dir / "check.py";
  write_file(path, script);
  const std::string command = "cd '" + dir.string() + "' && " + python3() + " '" + path.string() + "' '" + arg + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  std::array<char, 4096> buffer;
  while (const size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

}  // namespace mirror::testing
