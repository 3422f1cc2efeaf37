#pragma once
// Whole numbers of a configuration a person wrote (a config file, a lesson's settings), checked to
// fit the field they go to: nlohmann's get<int>() wraps silently, so 2^32 + 1 epochs became one.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "mirror/util/error.h"

namespace mirror {

// Member `key` of the object `parent` as a T; `fallback` when it is absent (or `parent` is no
// object). A number written with a fraction that is zero ("epochs": 5.0) counts as whole. Throws
// ConfigError naming the field as `name` (a dotted path: "devices.logical") when it is absent
// without a fallback, is not a whole number (2.5, "5"), or is outside T's range.
template <typename T>
T json_whole(const nlohmann::json& parent, const char* key, const std::string& name,
             std::optional<T> fallback = std::nullopt) {
  static_assert(std::is_integral_v<T>);
  const auto it = parent.is_object() ? parent.find(key) : parent.end();
  if (it == parent.end()) {
    if (fallback) return *fallback;
    throw ConfigError(fmt::format("'{}' is missing", name));
  }
  const auto out_of_range = [&] {
    return ConfigError(fmt::format("'{}' is {}, out of range [{}, {}]", name, it->dump(), std::numeric_limits<T>::min(),
                                   std::numeric_limits<T>::max()));
  };
  if (it->is_number_float()) {
    const double d = it->get<double>();
    if (!std::isfinite(d) || d != std::floor(d))
      throw ConfigError(fmt::format("'{}' is {}, not a whole number", name, it->dump()));
    // T's bounds as doubles: min is a power of two (or 0), and max + 1 is one.
    const double below = static_cast<double>(std::numeric_limits<T>::min());
    const double above = static_cast<double>(std::numeric_limits<T>::max() / 2 + 1) * 2.0;
    if (d < below || d >= above) throw out_of_range();
    return static_cast<T>(d);
  }
  if (!it->is_number_integer())
    throw ConfigError(fmt::format("'{}' is {}, not a whole number", name, it->is_number() ? it->dump() : it->type_name()));
  bool fits = false;
  if (it->is_number_unsigned()) {
    fits = it->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  } else {
    const int64_t n = it->get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) fits = n >= 0;
    else fits = n >= std::numeric_limits<T>::min() && n <= std::numeric_limits<T>::max();
  }
  if (!fits) throw out_of_range();
  return it->get<T>();
}

}  // namespace mirror
