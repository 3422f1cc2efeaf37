// libFuzzer target: a CSV table as the "table" dataset parses it, with the label column taken
// from the input's first byte (the last, an index, or the first header name). Anything but a
// DataError or ConfigError escaping, a crash, a leak, a hang, or a table whose parts disagree
// is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mirror/data/table_csv.h"
#include "mirror/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  mirror::TableCsvOptions options;
  if (data[0] % 3 == 1) options.label_column = std::to_string(data[0] % 5);
  if (data[0] % 3 == 2) options.label_column = "label";
  try {
    const mirror::ParsedTable t = mirror::parse_table_csv(text, options, "fuzz.csv");
    const auto rows = static_cast<size_t>(t.rows);
    if (t.rows < 1 || t.feature_names.empty() || t.labels.size() != rows ||
        t.features.size() != rows * t.feature_names.size() || t.class_names.size() < 2)
      __builtin_trap();
    for (const int64_t l : t.labels)
      if (l < 0 || l >= static_cast<int64_t>(t.class_names.size())) __builtin_trap();
  } catch (const mirror::DataError&) {
  } catch (const mirror::ConfigError&) {
  }
  return 0;
}
