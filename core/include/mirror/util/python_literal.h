#pragma once
// Python source text for names we did not write (a Keras layer name, a model name): they reach
// generated code only as an escaped string literal or a checked identifier, never raw. Pure
// functions, safe from any thread.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mirror {

// The longest identifier unique_python_identifiers() derives, "_N" suffix included.
inline constexpr size_t kMaxPythonIdentifier = 64;
// The longest name unique_python_identifiers() keeps as it is: an ordinary name up to this long
// exports exactly as before; a longer one is derived (so cut to kMaxPythonIdentifier).
inline constexpr size_t kMaxKeptPythonIdentifier = 255;

// A double-quoted Python str literal whose value is `bytes` read as UTF-8, in printable ASCII
// only, so it is safe on any line of a source file, comments included: backslash and quote are
// escaped, control characters (newline, NUL, ESC, ...) and DEL are \n, \r, \t or \xNN, non-ASCII
// characters (é, U+2028, RTL marks, ...) are \xNN, \uNNNN or \UNNNNNNNN. A byte that is not part
// of valid UTF-8 becomes \udcNN, Python's surrogateescape form:
// eval(literal).encode("utf-8", "surrogateescape") gives `bytes` back, whatever they were.
std::string python_string_literal(std::string_view bytes);

// [A-Za-z_][A-Za-z0-9_]*: the ASCII identifiers Python accepts (keywords included).
bool is_python_identifier(std::string_view s);

// A keyword of Python 3, hard ("class", "def", "lambda", "None", ...) or soft ("match", "case",
// "type"; not "_", which works as a name).
bool is_python_keyword(std::string_view s);
// "match", "case" or "type": keywords only at the start of their statements, names elsewhere.
bool is_python_soft_keyword(std::string_view s);

// One distinct Python identifier for each of `names` (in order), for use as attribute names:
// - a name that already is usable keeps its spelling (so "conv1d", "dense_1" stay as they are);
// - any other is derived: its runs of ASCII letters, digits and '_' joined by '_', leading
//   underscores dropped, cut to kMaxPythonIdentifier; if that is not usable, `fallbacks[i]`
//   (same treatment) is used, and if that is not usable either, "name";
// - a derived identifier that is taken gets the first free suffix "_1", "_2", ...
// Usable means: is_python_identifier, not a keyword (a soft keyword is usable: `self.match`), no
// leading '_' (private, dunder and name-mangled names), at most kMaxKeptPythonIdentifier
// characters, and `allowed(identifier)`.
// `fallbacks` is empty or as long as `names` (else std::invalid_argument). Pure.
std::vector<std::string> unique_python_identifiers(const std::vector<std::string>& names,
                                                   const std::vector<std::string>& fallbacks,
                                                   const std::function<bool(std::string_view)>& allowed);

}  // namespace mirror
