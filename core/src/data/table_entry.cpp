// The registry's "table" entry: your own CSV file, parsed by table_csv.cpp, split the Keras way.
#include <fmt/format.h>
#include <torch/torch.h>

#include <filesystem>
#include <system_error>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/directory_index.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/table_csv.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

namespace {
namespace fs = std::filesystem;

// Why the table file cannot be read from here; empty when it can.
std::string table_file_missing(const DatasetOptions& o) {
  if (o.data_dir.empty()) return "no CSV file given (--data-dir FILE.csv)";
  std::error_code ec;
  if (!fs::exists(o.data_dir, ec)) return fmt::format("{} does not exist", o.data_dir);
  if (fs::is_directory(o.data_dir, ec)) return fmt::format("{} is a folder, not a CSV file", o.data_dir);
  return {};
}

// The whole file, refused before it is read when it is over kMaxTableBytes.
std::string read_table_file(const std::string& path) {
  if (const std::string why = table_file_missing(DatasetOptions{.data_dir = path}); !why.empty())
    throw DataError(fmt::format("table: {}", why));
  UntrustedFile f(path, kMaxTableBytes);  // a FIFO or a device is refused unread
  if (f.too_large())
    throw DataError(fmt::format("{}: {:.1f} GiB is larger than the {} GiB a table may be (it is read into memory whole)",
                                path, static_cast<double>(f.size()) / (1 << 30), kMaxTableBytes >> 30));
  std::string text = f.read_all();
  if (!f.ok()) throw DataError(fmt::format("table: {} {}", terminal_text(path), f.problem()));
  return text;
}

// The rows at `rows` of the parsed table as tensors.
std::pair<torch::Tensor, torch::Tensor> table_rows(const ParsedTable& t, const std::vector<int64_t>& rows) {
  const int64_t f = t.features_per_row();
  auto x = torch::empty({static_cast<int64_t>(rows.size()), f}, torch::kFloat32);
  auto y = torch::empty({static_cast<int64_t>(rows.size())}, torch::kInt64);
  float* xs = x.data_ptr<float>();
  int64_t* ys = y.data_ptr<int64_t>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto r = static_cast<size_t>(rows[i]);
    std::copy_n(t.features.begin() + static_cast<std::ptrdiff_t>(r * static_cast<size_t>(f)), f, xs + i * f);
    ys[i] = t.labels[r];
  }
  return {x, y};
}
}  // namespace

std::shared_ptr<const Dataset> load_table_dataset(const DatasetOptions& o) {
  if (o.data_dir.empty())
    throw ConfigError("table: give the CSV file with --data-dir FILE.csv (dataset.data_dir)");
  const std::string path = fs::absolute(o.data_dir).lexically_normal().string();
  const std::string text = read_table_file(path);
  const ParsedTable t = parse_table_csv(text, TableCsvOptions{o.label_column}, terminal_text(path));
  const double share = o.validation_split < 0 ? 0.2 : o.validation_split;
  // keras_split's own refusals, said in rows rather than files.
  const auto held_out = static_cast<int64_t>(share * static_cast<double>(t.rows));
  if (share > 0 && share < 1 && held_out == 0)
    throw DataError(fmt::format("{}: validation_split {} of {} rows holds out none (int({} x {}) = 0); add rows, raise "
                                "validation_split or set it to 0", terminal_text(path), share, t.rows, share, t.rows));
  if (share > 0 && share < 1 && held_out >= t.rows)
    throw DataError(fmt::format("{}: validation_split {} of {} rows leaves no row for training", terminal_text(path), share, t.rows));
  const KerasSplit split = keras_split(t.rows, o.seed, share);
  auto [x_train, y_train] = table_rows(t, split.train);
  auto [x_val, y_val] = table_rows(t, split.validation);
  DatasetInfo info;
  info.name = "table";
  info.source = path;
  info.input_shape = {t.features_per_row()};
  info.kind = InputKind::kFloat;
  info.num_classes = static_cast<int64_t>(t.class_names.size());
  info.class_names = t.class_names;
  info.file_count = 1;
#ifdef MIRROR_WITH_DOWNLOADS  // SHA-256 comes with OpenSSL, which lean builds leave out
  info.content_hash = sha256_of_file(path);
#endif
  return std::make_shared<const Dataset>(std::move(info), x_train, y_train, x_val, y_val);
}

DatasetEntry table_entry() {
  return {
      .name = "table",
      .summary = "your own CSV file: numeric feature columns and a label column (2 features draw as points)",
      .uses = {.data_dir = true, .seed = true, .validation_split = true, .label_column = true},
      .missing = table_file_missing,
      .load = load_table_dataset,
  };
}

}  // namespace mirror
