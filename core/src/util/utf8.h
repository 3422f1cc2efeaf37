#pragma once
// UTF-8 decoding for the writers of text we did not write (python_literal.cpp, untrusted_text.cpp).
// Private to core.

#include <cstddef>
#include <string_view>

namespace mirror {

// The code point that starts `s` and its length in bytes (1 for ASCII); length 0 where `s` is
// empty or does not start with well-formed UTF-8 (a stray continuation byte, a truncated or
// overlong form, a surrogate, a value past U+10FFFF). Pure.
struct Utf8Char {
  char32_t code = 0;
  size_t length = 0;
};

inline Utf8Char decode_utf8(std::string_view s) {
  if (s.empty()) return {};
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return {c, 1};
  size_t n = 0;
  char32_t code = 0, least = 0;
  if ((c & 0xE0) == 0xC0) n = 2, code = c & 0x1F, least = 0x80;
  else if ((c & 0xF0) == 0xE0) n = 3, code = c & 0x0F, least = 0x800;
  else if ((c & 0xF8) == 0xF0) n = 4, code = c & 0x07, least = 0x10000;
  else return {};
  if (s.size() < n) return {};
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xC0) != 0x80) return {};
    code = (code << 6) | (b(i) & 0x3F);
  }
  if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, n};
}

}  // namespace mirror
