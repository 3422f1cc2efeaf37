#pragma once
// Reading fields of JSON documents that a crash, another program or a person may have damaged:
// a missing field or one of the wrong type gives the fallback, never an exception. A null
// number reads as NaN, since that is how a NaN loss is written.

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace mirror {

inline const nlohmann::json* json_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

inline double json_number(const nlohmann::json& j, const char* key, double fallback = 0) {
  const nlohmann::json* v = json_field(j, key);
  if (!v) return fallback;
  if (v->is_number()) return v->get<double>();
  return v->is_null() ? std::nan("") : fallback;
}

// A whole number; a float is truncated when it fits an int64 (1e300 does not: the fallback).
inline int64_t json_int(const nlohmann::json& j, const char* key, int64_t fallback = 0) {
  const nlohmann::json* v = json_field(j, key);
  if (v && v->is_number_unsigned())
    return v->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX) ? v->get<int64_t>() : fallback;
  if (v && v->is_number_integer()) return v->get<int64_t>();
  if (v && v->is_number_float()) {
    const double d = v->get<double>();
    // 2^63 is exact as a double; INT64_MAX is not (it rounds up to 2^63, which does not fit).
    if (std::isfinite(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) return static_cast<int64_t>(d);
  }
  return fallback;
}

inline std::string json_string(const nlohmann::json& j, const char* key, const std::string& fallback = {}) {
  const nlohmann::json* v = json_field(j, key);
  return v && v->is_string() ? v->get<std::string>() : fallback;
}

inline bool json_bool(const nlohmann::json& j, const char* key, bool fallback = false) {
  const nlohmann::json* v = json_field(j, key);
  return v && v->is_boolean() ? v->get<bool>() : fallback;
}

}  // namespace mirror
