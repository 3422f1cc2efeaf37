#include "mirror/util/untrusted_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "utf8.h"

namespace mirror {

namespace {
bool slug_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

// `s` without '.' and '-' at its end.
std::string_view without_trailing_separators(std::string_view s) {
  while (!s.empty() && (s.back() == '.' || s.back() == '-')) s.remove_suffix(1);
  return s;
}

std::string slug_or_empty(std::string_view name, size_t max_length) {
  // A run of separators ('-', '.', and the bytes that become '-') is written as one: '.' where
  // it holds only dots ("a..b" is "a.b"), else '-' ("a/../b" is "a-b"); none first.
  std::string out;
  char pending = 0;
  for (unsigned char c : name) {
    const char kept = slug_char(c) ? static_cast<char>(c) : '-';
    if (kept == '-' || kept == '.') {
      pending = pending == '-' ? '-' : kept;
      continue;
    }
    if (pending && !out.empty()) out += pending;
    pending = 0;
    out += kept;
    if (out.size() > max_length) break;  // enough to cut from
  }
  return std::string(without_trailing_separators(std::string_view(out).substr(0, max_length)));
}

// Code points that change how a terminal shows what follows: C1 controls, bidi marks,
// embeddings, overrides and isolates, line and paragraph separators.
bool reorders_or_controls(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || c == 0x2028 || c == 0x2029;
}

bool is_number(std::string_view s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size();
}
}  // namespace

std::string path_slug(std::string_view name, std::string_view fallback, size_t max_length) {
  max_length = std::max<size_t>(max_length, 1);
  std::string slug = slug_or_empty(name, max_length);
  if (slug.empty()) slug = slug_or_empty(fallback, max_length);
  return slug.empty() ? std::string("run").substr(0, max_length) : slug;
}

std::filesystem::path child_path(const std::filesystem::path& root, std::string_view component) {
  if (component.empty() || component == "." || component == ".." || component.find('/') != std::string_view::npos ||
      component.find('\0') != std::string_view::npos)
    throw std::invalid_argument(
        fmt::format("'{}' is not one name inside {}", terminal_text(component), terminal_text(root.string())));
  return root / std::string(component);
}

std::string terminal_text(std::string_view text, LineBreaks line_breaks) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const Utf8Char d = decode_utf8(text);
    const unsigned char c = static_cast<unsigned char>(text.front());
    if (d.length == 0) {
      out += fmt::format("\\x{:02x}", c);
      text.remove_prefix(1);
      continue;
    }
    const bool kept_break = line_breaks == LineBreaks::kKeep && (c == '\n' || c == '\t');
    if (d.length == 1 && (c < 0x20 || c == 0x7F) && !kept_break) {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : fmt::format("\\x{:02x}", c);
    } else if (reorders_or_controls(d.code)) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(d.code));
    } else {
      out.append(text.substr(0, d.length));
    }
    text.remove_prefix(d.length);
  }
  return out;
}

std::string csv_field(std::string_view text) {
  const bool formula = !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos &&
                       text != "-" && !is_number(text);
  const bool quoted = formula || text.find_first_of(",\"\r\n") != std::string_view::npos ||
                      (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.back() == ' ' ||
                                         text.back() == '\t'));
  if (!quoted) return std::string(text);
  std::string out = formula ? "\"'" : "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  const auto alnum_at = [&](size_t i) {
    return i < text.size() && std::isalnum(static_cast<unsigned char>(text[i])) && static_cast<unsigned char>(text[i]) < 0x80;
  };
  // Where the text starts a paragraph, its first characters could open a block: a heading (#), a
  // list item (-, +, 1. or 1)), a thematic break or underline (---, ===), a code block (indent).
  const size_t first = std::min(text.find_first_not_of(' '), text.size());
  size_t digits_end = first;
  while (digits_end < text.size() && text[digits_end] >= '0' && text[digits_end] <= '9') ++digits_end;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const unsigned char u = static_cast<unsigned char>(c);
    // Between two letters or digits '_' can neither open nor close emphasis: learning_rate stays.
    const bool intraword_underscore = c == '_' && i > 0 && alnum_at(i - 1) && alnum_at(i + 1);
    if (i == 0 && c == ' ') out += "&#32;";  // no indent: never a code block
    else if (i == first && std::string_view("#+-=").find(c) != std::string_view::npos) (out += '\\') += c;
    else if (i == digits_end && digits_end > first && c == '.') out += "\\.";
    else if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (std::string_view("\\`*_[]()|~").find(c) != std::string_view::npos && !intraword_underscore) (out += '\\') += c;
    else if (u < 0x20 || u == 0x7F) out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace mirror
