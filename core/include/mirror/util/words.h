#pragma once
// Counting in words: "1 replica", "2 replicas", never "1 replica(s)".

#include <cstdint>
#include <string>

namespace mirror {

// `n` and the noun, singular for exactly one: counted(1, "run") is "1 run", counted(3, "run")
// "3 runs"; `plural` for irregular nouns (counted(2, "device", "devices") is the default form).
inline std::string counted(int64_t n, const std::string& singular, const std::string& plural = {}) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural.empty() ? singular + "s" : plural);
}

}  // namespace mirror
