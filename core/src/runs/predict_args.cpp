// The what-if's arguments as a person types them: the scaling and the device counts.
// Tested by tests/core/runs/test_predict.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mirror/runs/predict.h"
#include "mirror/util/error.h"

namespace mirror {
namespace {
constexpr int kMaxDevices = 65536;
}  // namespace

const char* scaling_name(Scaling s) { return s == Scaling::kWeak ? "weak" : "strong"; }

Scaling parse_scaling(const std::string& name) {
  if (name == "weak") return Scaling::kWeak;
  if (name == "strong") return Scaling::kStrong;
  throw ConfigError(fmt::format("--scaling '{}': expected weak (fixed per-replica batch) or strong "
                                "(fixed global batch)", name));
}

std::vector<int> default_device_counts() {
  std::vector<int> counts;
  for (int n = 1; n <= 512; n *= 2) counts.push_back(n);
  return counts;
}

std::vector<int> parse_device_counts(const std::string& text) {
  auto number = [&](const std::string& s) {
    size_t used = 0;
    long value = 0;
    try {
      value = std::stol(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size())
      throw ConfigError(fmt::format("--devices '{}': '{}' is not a whole number "
                                    "(e.g. 1,2,4,8 or 1-8 or 1..512)", text, s));
    if (value < 1 || value > kMaxDevices)
      throw ConfigError(
          fmt::format("--devices '{}': {} is outside 1 to {}", text, value, kMaxDevices));
    return static_cast<int>(value);
  };
  std::vector<int> counts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) throw ConfigError(fmt::format("--devices '{}': an empty item", text));
    if (size_t dots = item.find(".."); dots != std::string::npos) {
      int from = number(item.substr(0, dots)), to = number(item.substr(dots + 2));
      if (from > to) throw ConfigError(fmt::format("--devices '{}': {} runs backwards", text, item));
      for (long n = from; n <= to; n *= 2) counts.push_back(static_cast<int>(n));
    } else if (size_t dash = item.find('-'); dash != std::string::npos && dash > 0) {
      int from = number(item.substr(0, dash)), to = number(item.substr(dash + 1));
      if (from > to) throw ConfigError(fmt::format("--devices '{}': {} runs backwards", text, item));
      if (to - from > 4096) throw ConfigError(fmt::format("--devices '{}': {} lists too many counts", text, item));
      for (int n = from; n <= to; ++n) counts.push_back(n);
    } else {
      counts.push_back(number(item));
    }
  }
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

}  // namespace mirror
