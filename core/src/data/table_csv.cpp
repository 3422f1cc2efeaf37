// Your own table: the CSV parser (torch-free; the fuzz target links it alone). The Dataset is made
// in table_entry.cpp.
#include "mirror/data/table_csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "mirror/util/error.h"

namespace mirror {

namespace {
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

std::string_view trim_cell(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A cell as a message shows it: at most 40 bytes, control bytes as '?'.
std::string shown_cell(std::string_view s) {
  std::string out;
  for (const char c : s.substr(0, 40)) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
  if (s.size() > 40) out += "...";
  return out;
}

// The delimiter of the first record: ';' when it separates cells there (a ';' file may use decimal
// commas), else ',', else a tab; 0 when the line holds none of them outside quotes.
char detect_delimiter(std::string_view text) {
  bool quoted = false, comma = false, semicolon = false, tab = false;
  for (const char c : text) {
    if (c == '"') quoted = !quoted;
    else if (quoted) continue;
    else if (c == '\n' || c == '\r') break;
    else if (c == ',') comma = true;
    else if (c == ';') semicolon = true;
    else if (c == '\t') tab = true;
  }
  return semicolon ? ';' : comma ? ',' : tab ? '\t' : 0;
}

// RFC 4180 records, one at a time, with the line each starts on.
class CsvRecords {
 public:
  CsvRecords(std::string_view text, char delimiter, const std::string& where)
      : text_(text), delimiter_(delimiter), where_(where) {}

  // The next record that is not a blank line into `cells` (reusing its strings); false at the end.
  bool next(std::vector<std::string>& cells, size_t& count) {
    while (pos_ < text_.size()) {
      start_line_ = line_;
      count = 0;
      bool quoted_any = false;
      for (bool more = true; more;) {
        if (count == cells.size()) cells.emplace_back();
        std::string& cell = cells[count++];
        cell.clear();
        if (count > static_cast<size_t>(kMaxTableColumns))
          throw DataError(fmt::format("{}: line {} has more than {} columns, the most a table may have", where_,
                                      start_line_, kMaxTableColumns));
        if (pos_ < text_.size() && text_[pos_] == '"') {
          quoted_any = true;
          read_quoted(cell, count);
        } else {
          const size_t end = text_.find_first_of(stops(), pos_);
          const size_t stop = end == std::string_view::npos ? text_.size() : end;
          cell.assign(text_.substr(pos_, stop - pos_));
          pos_ = stop;
        }
        more = pos_ < text_.size() && text_[pos_] == delimiter_;
        if (more) ++pos_;
      }
      end_line();
      if (count == 1 && !quoted_any && trim_cell(cells[0]).empty()) continue;  // a blank line
      return true;
    }
    return false;
  }
  int64_t line() const { return start_line_; }  // where the record last read starts, 1-based

 private:
  const char* stops() const { return delimiter_ == ';' ? ";\r\n" : delimiter_ == '\t' ? "\t\r\n" : ",\r\n"; }

  // A field in double quotes; "" is a quote. Afterwards only spaces may come before the delimiter
  // or the line's end.
  void read_quoted(std::string& cell, size_t column) {
    const int64_t opened = line_;
    ++pos_;
    for (;;) {
      const size_t q = text_.find('"', pos_);
      if (q == std::string_view::npos)
        throw DataError(fmt::format("{}: line {}, column {}: the quote opened here never closes", where_, opened, column));
      const std::string_view part = text_.substr(pos_, q - pos_);
      line_ += std::count(part.begin(), part.end(), '\n');
      cell += part;
      pos_ = q + 1;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        cell.push_back('"');
        ++pos_;
        continue;
      }
      break;
    }
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
    if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\n' && text_[pos_] != '\r')
      throw DataError(fmt::format("{}: line {}, column {}: text after the closing quote (a quote inside a quoted "
                                  "cell is written \"\")", where_, line_, column));
  }

  void end_line() {
    if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '\n') ++pos_;
    ++line_;
  }

  std::string_view text_;
  char delimiter_;
  const std::string& where_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  int64_t start_line_ = 1;
};

// A cell as a number; nullopt-like false when it is not one. With `decimal_comma`, "1,5" is 1.5.
bool parse_number(std::string_view s, bool decimal_comma, double& out) {
  s = trim_cell(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  std::string swapped;
  if (decimal_comma && s.find(',') != std::string_view::npos && s.find('.') == std::string_view::npos) {
    swapped.assign(s);
    std::replace(swapped.begin(), swapped.end(), ',', '.');
    s = swapped;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) {
    // Too large (1e400): the largest double, which the caller says is beyond float32. Too small
    // (1e-400): 0, as Python's float() and pandas read it.
    const std::string copy(s);
    out = std::strtod(copy.c_str(), nullptr);
    out = std::isinf(out) ? std::copysign(std::numeric_limits<double>::max(), out) : 0.0;
    return end == s.data() + s.size();
  }
  return ec == std::errc() && end == s.data() + s.size();
}

// A label that is a class id as it is: digits only, at most 9 of them.
bool class_id(std::string_view s, int64_t& out) {
  if (s.empty() || s.size() > 9) return false;
  out = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + (c - '0');
  }
  return true;
}

std::string column_name(size_t i) { return fmt::format("column {}", i + 1); }

// The label column's index among `first`'s cells, and whether naming it showed `first` is a header.
size_t label_index(const TableCsvOptions& o, const std::vector<std::string>& first, size_t columns, bool& header,
                   const std::string& where) {
  if (o.label_column.empty()) return columns - 1;
  int64_t index = 0;
  if (class_id(o.label_column, index)) {
    if (index >= static_cast<int64_t>(columns))
      throw ConfigError(fmt::format("{}: label column {} is not there: the file has {} columns, 0 to {}", where, index,
                                    columns, columns - 1));
    return static_cast<size_t>(index);
  }
  std::string names;
  for (size_t i = 0; i < columns; ++i) {
    if (trim_cell(first[i]) == o.label_column) {
      header = true;
      return i;
    }
    names += (i ? ", " : "") + shown_cell(trim_cell(first[i]));
  }
  throw ConfigError(fmt::format("{}: no column is called '{}' (the first row holds: {}); give a header name or a "
                                "0-based column index",
                                where, shown_cell(o.label_column), names));
}

// The class ids of the rows' labels: whole numbers as they are, else names in sorted order.
void assign_classes(ParsedTable& t, const std::vector<std::string>& labels, const std::string& where) {
  bool ids = true;
  int64_t largest = 0;
  for (const auto& l : labels) {
    int64_t id = 0;
    if (!class_id(l, id)) {
      ids = false;
      break;
    }
    largest = std::max(largest, id);
  }
  t.labels.resize(labels.size());
  int64_t distinct = 0;
  if (ids) {
    if (largest + 1 > kMaxTableClasses)
      throw DataError(fmt::format("{}: label {} would make {} classes, more than the {} a table may have (labels are "
                                  "class ids 0 to K-1, or words)", where, largest, largest + 1, kMaxTableClasses));
    std::vector<bool> seen(static_cast<size_t>(largest + 1));
    for (size_t i = 0; i < labels.size(); ++i) {
      class_id(labels[i], t.labels[i]);
      if (!seen[static_cast<size_t>(t.labels[i])]) ++distinct;
      seen[static_cast<size_t>(t.labels[i])] = true;
    }
    for (int64_t k = 0; k <= largest; ++k) t.class_names.push_back(std::to_string(k));
  } else {
    std::map<std::string, int64_t> classes;
    for (const auto& l : labels) {
      classes.emplace(l, 0);
      if (static_cast<int64_t>(classes.size()) > kMaxTableClasses)
        throw DataError(fmt::format("{}: the label column names more than {} classes, the most a table may have",
                                    where, kMaxTableClasses));
    }
    for (auto& [name, id] : classes) {
      id = static_cast<int64_t>(t.class_names.size());
      t.class_names.push_back(name);
    }
    for (size_t i = 0; i < labels.size(); ++i) t.labels[i] = classes.at(labels[i]);
    distinct = static_cast<int64_t>(classes.size());
  }
  if (distinct < 2)
    throw DataError(fmt::format("{}: every row has the label '{}': a classifier needs at least two classes", where,
                                shown_cell(labels.front())));
}
}  // namespace

ParsedTable parse_table_csv(std::string_view text, const TableCsvOptions& options, const std::string& where) {
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) text.remove_prefix(kByteOrderMark.size());
  ParsedTable t;
  const size_t first = text.find_first_not_of(" \t\r\n");  // the first line that is not blank
  const size_t first_line = first == std::string_view::npos ? text.size() : text.rfind('\n', first) + 1;
  t.delimiter = detect_delimiter(text.substr(first_line));
  if (t.delimiter == 0) t.delimiter = ',';  // one column: refused below, with its line
  CsvRecords records(text, t.delimiter, where);
  std::vector<std::string> cells;
  size_t count = 0;
  if (!records.next(cells, count)) throw DataError(fmt::format("{}: the file holds no rows", where));
  const size_t columns = count;
  if (columns < 2)
    throw DataError(fmt::format("{}: line {} has one column; a table needs feature columns and a label column, "
                                "separated by ',' or ';'", where, records.line()));
  const size_t label = label_index(options, cells, columns, t.header, where);
  t.label_index = static_cast<int64_t>(label);
  const bool decimal_comma = t.delimiter == ';';
  double value = 0;
  for (size_t i = 0; i < columns && !t.header; ++i)
    if (i != label && !parse_number(cells[i], decimal_comma, value)) t.header = true;
  for (size_t i = 0; i < columns; ++i) {
    std::string name = t.header ? std::string(trim_cell(cells[i])) : column_name(i);
    if (name.empty()) name = column_name(i);
    if (i == label) t.label_name = std::move(name);
    else t.feature_names.push_back(std::move(name));
  }
  std::vector<std::string> labels;
  bool have_row = !t.header;  // `cells` holds the first row of data
  while (have_row || records.next(cells, count)) {
    have_row = false;
    if (count != columns)
      throw DataError(fmt::format("{}: line {} has {} cells, the first row has {} (every row needs a value in every "
                                  "column)", where, records.line(), count, columns));
    for (size_t i = 0; i < columns; ++i) {
      if (i == label) {
        const std::string_view l = trim_cell(cells[i]);
        if (l.empty())
          throw DataError(fmt::format("{}: line {}, column {} ('{}'): the label is empty", where, records.line(), i + 1,
                                      shown_cell(t.label_name)));
        labels.emplace_back(l);
        continue;
      }
      const std::string& name = t.feature_names[i < label ? i : i - 1];
      if (!parse_number(cells[i], decimal_comma, value))
        throw DataError(fmt::format("{}: line {}, column {} ('{}'): '{}' is not a number (feature columns hold numbers)",
                                    where, records.line(), i + 1, shown_cell(name), shown_cell(trim_cell(cells[i]))));
      if (!std::isfinite(value))
        throw DataError(fmt::format("{}: line {}, column {} ('{}'): '{}' is not a finite number (NaN and infinity "
                                    "cannot be trained on)", where, records.line(), i + 1, shown_cell(name),
                                    shown_cell(trim_cell(cells[i]))));
      if (std::abs(value) > std::numeric_limits<float>::max())
        throw DataError(fmt::format("{}: line {}, column {} ('{}'): {} is beyond float32's range", where,
                                    records.line(), i + 1, shown_cell(name), shown_cell(trim_cell(cells[i]))));
      t.features.push_back(static_cast<float>(value));
    }
    ++t.rows;
  }
  if (t.rows == 0) throw DataError(fmt::format("{}: the file holds a header row and no rows of data", where));
  assign_classes(t, labels, where);
  return t;
}

}  // namespace mirror
