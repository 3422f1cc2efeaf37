#pragma once
// Your own table: a CSV file of numeric feature columns and one label column, read into plain
// values (this header and its parser are torch-free, so the fuzz target links them alone), then
// made a Dataset by load_table_dataset.
//
// The file: RFC 4180 fields (double quotes around a field that holds the delimiter, a quote or a
// line break; "" for a quote inside one), lines ending in LF or CRLF, an optional UTF-8 byte order
// mark, cells separated by ',' or ';' or a tab (the one that separates the first line's cells,
// outside quotes; with ';' a feature may use a decimal comma, "1,5"). A header row is taken when
// the first row holds a cell that is not a number in a feature column. Blank lines are skipped.
// Labels: whole numbers 0..K-1 are the classes as they are (K = the largest + 1; class names "0",
// "1", ...); anything else (words, negative or fractional numbers) is a class name, classes in
// sorted (byte) order, as Keras' folders are.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mirror/data/dataset_options.h"

namespace mirror {

class Dataset;

// The largest table file read: it is held in memory whole while it is parsed, then its values as
// float32. A larger file is refused before it is read.
inline constexpr uint64_t kMaxTableBytes = uint64_t{1} << 30;  // 1 GiB
// The most columns a row may have (features and the label).
inline constexpr int64_t kMaxTableColumns = 10'000;
// The most classes a label column may name (a column of ids 0..K-1 or of distinct words).
inline constexpr int64_t kMaxTableClasses = 10'000;

struct TableCsvOptions {
  // The label column: its header name, or its 0-based index; empty: the last column.
  std::string label_column;
};

// A table read from CSV text: plain values, ready to become tensors.
struct ParsedTable {
  std::vector<std::string> feature_names;  // the header's names, else "column 1", "column 2", ... (1-based)
  std::string label_name;                  // the label column's header name, else "column N"
  int64_t label_index = 0;                 // 0-based, among all the columns
  bool header = false;                     // the first row was a header
  char delimiter = ',';
  int64_t rows = 0;                        // rows of data (the header not counted)
  std::vector<float> features;             // rows x feature_names.size(), row-major, in file order
  std::vector<int64_t> labels;             // one class id per row, in file order
  std::vector<std::string> class_names;    // class id -> name
  int64_t features_per_row() const { return static_cast<int64_t>(feature_names.size()); }
};

// Parses `text` (the whole file). `where` names the file in messages. Throws DataError naming the
// line and column (both 1-based, the line where the offending row starts) for: a cell that is not
// a finite number in a feature column (an empty cell, a word, NaN, infinity, a number beyond
// float32's range), a row with another number of cells than the first, a quote that never closes
// or text after a closing quote, fewer than two columns or more than kMaxTableColumns, no rows of
// data, fewer than two classes, or more than kMaxTableClasses. ConfigError for a label column
// that is not there (naming the columns there are). Thread-safe (no shared state).
ParsedTable parse_table_csv(std::string_view text, const TableCsvOptions& options, const std::string& where);

// The "table" dataset: options.data_dir is the CSV file; options.label_column picks the label;
// the rows are split as Keras splits a folder's files (keras_split: a shuffle with `seed`, the
// last int(validation_split * rows) held out). DatasetInfo: input_shape {features}, float inputs,
// file_count 1, content_hash the file's SHA-256. Throws ConfigError for no data_dir or a bad
// validation_split; DataError for a file that is missing, unreadable, larger than kMaxTableBytes
// (saying the cap), or malformed (as parse_table_csv), or one whose split leaves no training row.
std::shared_ptr<const Dataset> load_table_dataset(const DatasetOptions& options);

}  // namespace mirror
