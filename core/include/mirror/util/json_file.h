#pragma once
// The one way JSON text from outside the program becomes a tree: a file, a line of a .jsonl file,
// a value a person typed. The text's size and nesting are checked BEFORE any tree is built, so a
// crafted file can neither exhaust the stack (nlohmann's copy, comparison and dump() recurse once
// per level: 120 KB of '[' was a SIGSEGV) nor the memory. Every reader of JSON goes through here.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace mirror {

// Deeper than this is refused. Our deepest files (a run.json: config, model, layers, a layer, its
// options) nest under 10 levels, Keras' to_json() under 15; at 256 the recursion over a tree stays
// a few hundred KB of stack, far from the smallest thread stack we run on.
inline constexpr int kMaxJsonDepth = 256;

// Which error a refused text raises: ConfigError for what a person chose (a model file, a config,
// a lesson, a typed value), DataError for what a program recorded (a run.json, metrics, evaluations).
enum class JsonErrorType { kConfigError, kDataError };

// What one kind of JSON document may be.
struct JsonLimits {
  const char* kind;       // with its article, for messages: "a run.json", "a model file"
  size_t max_bytes;       // a file or line longer than this is refused unread
  JsonErrorType error;
  int max_depth = kMaxJsonDepth;
};

inline constexpr size_t kKiB = 1024;
inline constexpr size_t kMiB = 1024 * kKiB;

// The limits per kind, each about 5 to 50 times the largest real document of that kind.
// A Keras to_json() of the largest keras.applications model (NASNetLarge) is about 1.5 MB.
inline constexpr JsonLimits kModelFileJson{"a model file", 8 * kMiB, JsonErrorType::kConfigError};
// A run.json holds a config with its model inline, plus what the run adds (devices, versions).
inline constexpr JsonLimits kRunJson{"a run.json", 16 * kMiB, JsonErrorType::kDataError};
// `train --config` takes a run.json or a bare config.
inline constexpr JsonLimits kConfigFileJson{"a config file", kRunJson.max_bytes, JsonErrorType::kConfigError};
// A lesson is a few paragraphs and at most 64 runs; the built-in ones are under 4 KB.
inline constexpr JsonLimits kLessonJson{"a lesson", 1 * kMiB, JsonErrorType::kConfigError};
// The built-in presets (embedded at build time), each under 2 KB.
inline constexpr JsonLimits kPresetJson{"a preset", 1 * kMiB, JsonErrorType::kConfigError};
// meta.json: a run's name, tags and notes as a person typed them.
inline constexpr JsonLimits kRunMetaJson{"a meta.json", 1 * kMiB, JsonErrorType::kDataError};
// A line of metrics.jsonl: a step with 1,024 replicas' timings is about 100 KB.
inline constexpr JsonLimits kMetricsLineJson{"a metrics line", 1 * kMiB, JsonErrorType::kDataError};
// A line of evaluations.jsonl: at most kMaxEvaluationClasses^2 counts (2 to 8 MB) and three
// examples per cell of them, bounded by the validation split (50,000 are about 6 MB).
inline constexpr JsonLimits kEvaluationLineJson{"an evaluation line", 16 * kMiB, JsonErrorType::kDataError};
// Keras' word index files ({word: rank}): imdb_word_index.json is 1.6 MB.
inline constexpr JsonLimits kWordIndexJson{"a word index", 64 * kMiB, JsonErrorType::kDataError};
// A setting's value typed in a field or given on the command line (lr=0.01, units=[64, 32]).
inline constexpr JsonLimits kTypedValueJson{"a typed value", 64 * kKiB, JsonErrorType::kConfigError};

// The JSON document in the file at `path`. Throws the error `limits.error` names, with the path and
// the reason, when the file cannot be opened or read, is a directory, is larger than
// `limits.max_bytes` (then it is not read), nests deeper than `limits.max_depth`, or is not JSON.
// Thread-safe.
nlohmann::json parse_json_file(const std::string& path, const JsonLimits& limits);

// The JSON document in `text`; `what` names where it came from in messages ("--sweep lr", a
// path and a line number). Throws like parse_json_file.
nlohmann::json parse_json_text(std::string_view text, const std::string& what, const JsonLimits& limits);

// For each line of the .jsonl file `path` that is not empty, in order: `each(line_number, value)`
// for a line within `limits` that parses, else `refused(line_number, reason)`, the reason a
// sentence about "the line" ("the line is nested 300 levels deep; ..."). A line longer than
// `limits.max_bytes` is skipped without being held in memory whole. Missing file: no calls. A
// file that is not a regular one (a FIFO, a device) or is over kMaxRecordFileBytes is not read:
// one call `refused(0, reason)`, the reason a sentence about "the file" (kMaxRecordFileBytes:
// untrusted_file.h).
// Exceptions from `each` and `refused` propagate; a read error ends the file as if it were cut.
void for_each_json_line(const std::string& path, const JsonLimits& limits,
                        const std::function<void(int64_t line, nlohmann::json value)>& each,
                        const std::function<void(int64_t line, const std::string& reason)>& refused);

// How deep the brackets of `text` nest outside strings: as deep as a JSON parser would build,
// up to where it would stop at an unbalanced bracket. O(size), no allocation.
int64_t json_nesting_depth(std::string_view text);

}  // namespace mirror
