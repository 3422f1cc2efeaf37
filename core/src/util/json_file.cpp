#include "mirror/util/json_file.h"


#include <fmt/format.h>

#include <algorithm>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

namespace {
[[noreturn]] void refuse(const JsonLimits& limits, const std::string& message) {
  if (limits.error == JsonErrorType::kConfigError) throw ConfigError(message);
  throw DataError(message);
}

// 100000 as "100,000".
std::string with_thousands(int64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

[[noreturn]] void refuse_size(const JsonLimits& limits, const std::string& what, uint64_t size) {
  refuse(limits, fmt::format("{} is {}; {} is at most {}", what, readable_size(size), limits.kind,
                             readable_size(limits.max_bytes)));
}

// The whole file, refused unread when it is larger than the limits allow or not a regular file
// (a FIFO, a device: untrusted_file.h).
std::string read_bounded(const std::string& path, const JsonLimits& limits) {
  UntrustedFile f(path, limits.max_bytes);
  const std::string shown = terminal_text(path);  // a line feed in a name cannot forge a line
  if (f.too_large()) refuse_size(limits, shown, f.size());
  if (f.folder()) refuse(limits, fmt::format("{} is a directory, not {}", shown, limits.kind));
  std::string text = f.read_all();
  if (!f.ok()) refuse(limits, fmt::format("{} {}", shown, f.problem()));
  return text;
}
}  // namespace

int64_t json_nesting_depth(std::string_view text) {
  int64_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && --depth < 0) {
      break;  // a parser stops at the unbalanced bracket: nothing after it is built
    }
  }
  return deepest;
}

nlohmann::json parse_json_text(std::string_view text, const std::string& what, const JsonLimits& limits) {
  if (text.size() > limits.max_bytes) refuse_size(limits, what, text.size());
  // JSON has no raw NUL (inside a string it is \u0000), and nlohmann's parser takes one for the
  // end of the input: what followed was dropped without a word. Only NULs to the end (what a
  // crash can leave at the end of a file a filesystem had grown) are taken as its end.
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
    if (text.find_first_not_of('\0', nul) != std::string_view::npos)
      refuse(limits, fmt::format("{} is not valid JSON (a NUL byte at offset {}; is it a binary file?)", what, nul));
    text = text.substr(0, nul);
  }
  if (const int64_t depth = json_nesting_depth(text); depth > limits.max_depth)
    refuse(limits, fmt::format("{} is nested {} levels deep; the limit is {}", what, with_thousands(depth),
                               limits.max_depth));
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    refuse(limits, fmt::format("{} is not valid JSON ({})", what, e.what()));
  }
}

nlohmann::json parse_json_file(const std::string& path, const JsonLimits& limits) {
  return parse_json_text(read_bounded(path, limits), path, limits);
}

void for_each_json_line(const std::string& path, const JsonLimits& limits,
                        const std::function<void(int64_t line, nlohmann::json value)>& each,
                        const std::function<void(int64_t line, const std::string& reason)>& refused) {
  UntrustedFile f(path, kMaxRecordFileBytes);
  if (f.missing()) return;
  if (!f.ok()) return refused(0, fmt::format("the file {}", f.problem()));
  std::string line;
  bool too_long = false;  // the current line passed the limit: the rest of it is dropped unread
  int64_t number = 0;
  const auto finish_line = [&] {
    ++number;
    if (too_long) {
      refused(number, fmt::format("the line is longer than {} may be (at most {})", limits.kind,
                                  readable_size(limits.max_bytes)));
    } else if (!line.empty()) {
      nlohmann::json value;
      try {
        value = parse_json_text(line, "the line", limits);
      } catch (const std::runtime_error& e) {  // ConfigError or DataError, as `limits` says
        refused(number, e.what());
        line.clear();
        return;
      }
      each(number, std::move(value));
    }
    line.clear();
    too_long = false;
  };
  std::string buffer;  // one buffer for every piece
  for (uint64_t offset = 0; offset < f.size();) {
    f.read(offset, 1024 * 1024, buffer);
    if (buffer.empty()) break;  // a read error or a file cut since: it ends here
    offset += buffer.size();
    for (std::string_view chunk(buffer); !chunk.empty();) {
      const size_t nl = chunk.find('\n');
      const std::string_view piece = chunk.substr(0, nl);
      if (!too_long) line.append(piece);
      if (line.size() > limits.max_bytes) {
        too_long = true;
        line.clear();
        line.shrink_to_fit();
      }
      if (nl == std::string_view::npos) break;
      finish_line();
      chunk.remove_prefix(nl + 1);
    }
  }
  if (!line.empty() || too_long) finish_line();
}

}  // namespace mirror
