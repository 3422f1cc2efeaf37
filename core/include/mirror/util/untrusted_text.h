#pragma once
// Text we did not write (a model, layer, run or lesson name, a dataset's class names, a run.json
// field) made safe for where it goes: a path component, a terminal, a CSV field, HTML, Markdown.
// Every function takes any bytes (UTF-8 expected, not required), never throws unless it says so,
// and is thread-safe.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace mirror {

inline constexpr size_t kMaxSlugLength = 64;

// `name` as one file or folder name: ASCII letters, digits, '-', '_' and '.' are kept, every other
// byte (a '/', a space, a control character, each byte of a non-ASCII letter) becomes '-'; a run
// of these separators is one character, '.' where it was only dots, else '-' (so never ".."); no
// '.' or '-' first or last (no hidden file, no option); at most `max_length` bytes. Where nothing is left ("", ".", "..", "///", "模型"):
// `fallback`, itself made a slug ("run" if that leaves nothing).
std::string path_slug(std::string_view name, std::string_view fallback = "run", size_t max_length = kMaxSlugLength);

// `root` / `component`, where `component` must be one name inside `root` (non-empty, not "." or
// "..", no '/' or NUL), as path_slug makes them. Throws std::invalid_argument naming the component
// otherwise: a caller that joins text it did not slug has a bug, and must not write elsewhere.
std::filesystem::path child_path(const std::filesystem::path& root, std::string_view component);

// How terminal_text treats line breaks.
enum class LineBreaks {
  kEscape,  // a name or a table cell: "\n", "\t" shown escaped, on one line
  kKeep,    // a message of several lines: '\n' and '\t' kept
};

// `text` as a terminal may print it: control characters (C0, DEL, C1: ESC sequences, a lone CR
// that would overwrite the line, BEL), bytes that are not UTF-8, and the Unicode controls that
// reorder or break what follows (bidi embeddings, overrides and isolates, U+200E/F, U+061C,
// U+2028/9) are written as visible escapes: "\x1b", "\r", "\u202e". Everything else unchanged.
std::string terminal_text(std::string_view text, LineBreaks line_breaks = LineBreaks::kEscape);

// One CSV field (RFC 4180): quoted, with '"' doubled, when it holds a comma, a quote, a CR or LF,
// or starts or ends with a space or tab. A field a spreadsheet would run as a formula (starting
// with '=', '+', '-', '@', tab or CR, and not a number or the "-" that stands for no value) is
// prefixed with an apostrophe and quoted: the README offers the CSV for spreadsheets.
std::string csv_field(std::string_view text);

// `text` as HTML text or a quoted attribute value: & < > " ' as character references.
std::string html_text(std::string_view text);

// `text` inline in Markdown (a table cell, a paragraph or the start of one, a heading after "## "):
// shown as its characters, never as markup, a link or an image, nor as a block (a leading #, -, +,
// =, "1." or indent is escaped): & < > as character references (no raw HTML,
// no autolink); \ ` * _ [ ] ( ) | ~ backslash-escaped (no emphasis, code span, link, table cell
// break), but for a '_' between two ASCII letters or digits (learning_rate), which CommonMark never
// reads as emphasis; CR, LF and other control characters as one space each (a cell stays one row).
std::string markdown_text(std::string_view text);

}  // namespace mirror
