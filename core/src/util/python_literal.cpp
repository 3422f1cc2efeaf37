#include "mirror/util/python_literal.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <stdexcept>

#include "utf8.h"

namespace mirror {

namespace {
std::string escape_code_point(char32_t cp) {
  switch (cp) {
    case '\\': return "\\\\";
    case '"': return "\\\"";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: break;
  }
  if (cp >= 0x20 && cp < 0x7F) return std::string(1, static_cast<char>(cp));
  if (cp <= 0xFF) return fmt::format("\\x{:02x}", static_cast<uint32_t>(cp));
  if (cp <= 0xFFFF) return fmt::format("\\u{:04x}", static_cast<uint32_t>(cp));
  return fmt::format("\\U{:08x}", static_cast<uint32_t>(cp));
}

// A soft keyword is a keyword only at the start of its own statement: `self.match = ...` is valid
// Python, so a layer named "match" keeps its name (and its state-dict keys) as before.
bool is_usable(std::string_view s, const std::function<bool(std::string_view)>& allowed) {
  return is_python_identifier(s) && s[0] != '_' && s.size() <= kMaxKeptPythonIdentifier &&
         (!is_python_keyword(s) || is_python_soft_keyword(s)) && allowed(s);
}

// `name`'s runs of identifier characters joined by '_', without leading underscores, cut short.
std::string derive(std::string_view name) {
  std::string out;
  bool gap = false;
  for (char c : name) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) {
      gap = true;
      continue;
    }
    if (gap && !out.empty()) out += '_';
    gap = false;
    if (out.empty() && c == '_') continue;
    out += c;
  }
  if (out.size() > kMaxPythonIdentifier) out.resize(kMaxPythonIdentifier);
  return out;
}
}  // namespace

std::string python_string_literal(std::string_view bytes) {
  std::string out = "\"";
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      out += escape_code_point(b);
      ++i;
    } else if (const Utf8Char c = decode_utf8(bytes.substr(i)); c.length > 0) {
      out += escape_code_point(c.code);
      i += c.length;
    } else {
      out += fmt::format("\\udc{:02x}", b);  // surrogateescape: the byte itself
      ++i;
    }
  }
  return out + "\"";
}

bool is_python_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_python_soft_keyword(std::string_view s) { return s == "match" || s == "case" || s == "type"; }

bool is_python_keyword(std::string_view s) {
  // keyword.kwlist and keyword.softkwlist of Python 3.12, less "_".
  static constexpr std::array<std::string_view, 38> kKeywords = {
      "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break", "class",
      "continue", "def", "del",     "elif",     "else", "except", "finally", "for",  "from",  "global",
      "if",    "import", "in",      "is",       "lambda", "nonlocal", "not", "or",   "pass",  "raise",
      "return", "try",   "while",   "with",     "yield", "match",  "case",  "type"};
  return std::find(kKeywords.begin(), kKeywords.end(), s) != kKeywords.end();
}

std::vector<std::string> unique_python_identifiers(const std::vector<std::string>& names,
                                                   const std::vector<std::string>& fallbacks,
                                                   const std::function<bool(std::string_view)>& allowed) {
  if (!fallbacks.empty() && fallbacks.size() != names.size())
    throw std::invalid_argument(fmt::format("unique_python_identifiers: {} names but {} fallbacks", names.size(),
                                            fallbacks.size()));
  std::vector<std::string> out(names.size());
  std::set<std::string> taken;
  // First every name that is usable as it is, so that no derived identifier takes its spelling.
  for (size_t i = 0; i < names.size(); ++i)
    if (is_usable(names[i], allowed) && taken.insert(names[i]).second) out[i] = names[i];
  for (size_t i = 0; i < names.size(); ++i) {
    if (!out[i].empty()) continue;
    std::string base = derive(names[i]);
    if (!is_usable(base, allowed)) base = fallbacks.empty() ? "" : derive(fallbacks[i]);
    if (!is_usable(base, allowed)) base = "name";
    std::string id = base;
    if (taken.count(id)) base.resize(std::min(base.size(), kMaxPythonIdentifier - 8));  // room for "_N"
    for (int n = 1; taken.count(id) || !is_usable(id, allowed); ++n) id = fmt::format("{}_{}", base, n);
    taken.insert(id);
    out[i] = std::move(id);
  }
  return out;
}

}  // namespace mirror
