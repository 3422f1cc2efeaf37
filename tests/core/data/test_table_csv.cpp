// Your own table: CSV files written by the tests, parsed, split the Keras way, refused with the
// line and column when malformed.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/keras_text.h"
#include "mirror/data/table_csv.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::TempDir;
using mirror::testing::data_error;
using mirror::testing::error_of;
using mirror::testing::write_file;

namespace {
ParsedTable table_parse(const std::string& text, const std::string& label_column = "") {
  return parse_table_csv(text, TableCsvOptions{label_column}, "t.csv");
}
std::string table_parse_error(const std::string& text, const std::string& label_column = "") {
  return data_error([&] { table_parse(text, label_column); });
}
}  // namespace

TEST(TableCsv, ReadsAHeaderWordLabelsInSortedOrderAndTheLastColumnAsLabel) {
  const ParsedTable t = table_parse("x,y,kind\n0.5,-1,dog\n1e2,2,cat\n3,4,dog\n");
  EXPECT_TRUE(t.header);
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(t.label_name, "kind");
  EXPECT_EQ(t.rows, 3);
  EXPECT_EQ(t.features, (std::vector<float>{0.5f, -1, 100, 2, 3, 4}));
  EXPECT_EQ(t.class_names, (std::vector<std::string>{"cat", "dog"}));
  EXPECT_EQ(t.labels, (std::vector<int64_t>{1, 0, 1}));
}

TEST(TableCsv, WholeNumberLabelsAreTheClassesAsTheyAre) {
  const ParsedTable t = table_parse("1,2,2\n3,4,0\n5,6,2\n");
  EXPECT_FALSE(t.header);
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"column 1", "column 2"}));
  EXPECT_EQ(t.labels, (std::vector<int64_t>{2, 0, 2}));
  EXPECT_EQ(t.class_names, (std::vector<std::string>{"0", "1", "2"}));  // 1 has no rows, still a class
  // Negative or fractional labels are names, in sorted order.
  EXPECT_EQ(table_parse("1,-1\n2,1\n3,-1\n").class_names, (std::vector<std::string>{"-1", "1"}));
  EXPECT_EQ(table_parse("1,0.0\n2,1.0\n").labels, (std::vector<int64_t>{0, 1}));
}

TEST(TableCsv, TheLabelColumnByNameOrIndex) {
  const std::string csv = "kind,x,y\na,1,2\nb,3,4\n";
  ParsedTable t = table_parse(csv, "kind");
  EXPECT_EQ(t.label_index, 0);
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(t.features, (std::vector<float>{1, 2, 3, 4}));
  t = table_parse(csv, "0");
  EXPECT_EQ(t.label_name, "kind");
  EXPECT_EQ(t.labels, (std::vector<int64_t>{0, 1}));
  // A label column named in the middle of a header-less file: the first row is data.
  t = table_parse("1,a,2\n3,b,4\n", "1");
  EXPECT_FALSE(t.header);
  EXPECT_EQ(t.features, (std::vector<float>{1, 2, 3, 4}));
  const std::string missing = error_of<ConfigError>([&] { table_parse(csv, "species"); });
  EXPECT_NE(missing.find("no column is called 'species'"), std::string::npos) << missing;
  EXPECT_NE(missing.find("kind, x, y"), std::string::npos) << missing;
  const std::string beyond = error_of<ConfigError>([&] { table_parse(csv, "3"); });
  EXPECT_NE(beyond.find("3 columns, 0 to 2"), std::string::npos) << beyond;
}

TEST(TableCsv, QuotesCrlfByteOrderMarkAndSemicolons) {
  // RFC 4180: a quoted header with a delimiter, a quote and a line break inside; CRLF lines; a BOM.
  const ParsedTable t = table_parse("\xEF\xBB\xBF\"a,b\",\"say \"\"hi\"\"\",\"two\r\nlines\"\r\n1,2,x\r\n\"3\",4,y\r\n\r\n");
  EXPECT_TRUE(t.header);
  EXPECT_EQ(t.feature_names, (std::vector<std::string>{"a,b", "say \"hi\""}));
  EXPECT_EQ(t.label_name, "two\r\nlines");
  EXPECT_EQ(t.features, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(t.rows, 2);
  // ';' separates (a European spreadsheet's export), with decimal commas.
  const ParsedTable s = table_parse("x;y;c\n1,5;-2;a\n0,25;3.5;b\n");
  EXPECT_EQ(s.delimiter, ';');
  EXPECT_EQ(s.features, (std::vector<float>{1.5f, -2, 0.25f, 3.5f}));
  // A tab, and blank lines anywhere.
  EXPECT_EQ(table_parse("\n1\t2\ta\n\n3\t4\tb\n").features, (std::vector<float>{1, 2, 3, 4}));
}

TEST(TableCsv, BadCellsNameTheirLineAndColumn) {
  std::string e = table_parse_error("x,y,c\n1,2,a\n3,oops,b\n");
  EXPECT_NE(e.find("t.csv: line 3, column 2 ('y'): 'oops' is not a number"), std::string::npos) << e;
  e = table_parse_error("x,y,c\n1,,a\n3,4,b\n");
  EXPECT_NE(e.find("line 2, column 2"), std::string::npos) << e;
  for (const char* bad : {"nan", "inf", "-Infinity"}) {
    e = table_parse_error(std::string("x,y,c\n1,2,a\n3,") + bad + ",b\n");
    EXPECT_NE(e.find("line 3, column 2 ('y'): '" + std::string(bad) + "' is not a finite number"), std::string::npos) << e;
  }
  e = table_parse_error("x,y,c\n1,1e39,a\n3,4,b\n");
  EXPECT_NE(e.find("line 2, column 2 ('y'): 1e39 is beyond float32's range"), std::string::npos) << e;
  e = table_parse_error("x,y,c\n1,1e400,a\n3,4,b\n");  // beyond double's range too
  EXPECT_NE(e.find("line 2, column 2 ('y'): 1e400 is beyond float32's range"), std::string::npos) << e;
  // Below double's range is 0, as Python's float() and pandas read it (it was "not a finite number").
  const ParsedTable tiny = table_parse("x,y,c\n1,1e-400,a\n-1e-400,4,b\n");
  EXPECT_EQ(tiny.features, (std::vector<float>{1, 0, 0, 4}));
  e = table_parse_error("x,y,c\n1,2,a\n3,4\n");
  EXPECT_NE(e.find("line 3 has 2 cells, the first row has 3"), std::string::npos) << e;
  e = table_parse_error("x,y,c\n1,2,\n3,4,b\n");
  EXPECT_NE(e.find("line 2, column 3 ('c'): the label is empty"), std::string::npos) << e;
  // A quoted cell spanning lines: the row after it is counted on its real line.
  e = table_parse_error("x,y,c\n1,2,\"a\nb\"\n3,z,b\n");
  EXPECT_NE(e.find("line 4, column 2"), std::string::npos) << e;
  e = table_parse_error("x,y,c\n1,2,\"a\n3,4,b\n");
  EXPECT_NE(e.find("line 2, column 3: the quote opened here never closes"), std::string::npos) << e;
  e = table_parse_error("x,y,c\n1,2,\"a\"b\n");
  EXPECT_NE(e.find("line 2, column 3: text after the closing quote"), std::string::npos) << e;
}

TEST(TableCsv, RefusesTablesThatCannotBeTrainedOn) {
  EXPECT_NE(table_parse_error("").find("holds no rows"), std::string::npos);
  EXPECT_NE(table_parse_error("\r\n\n").find("holds no rows"), std::string::npos);
  EXPECT_NE(table_parse_error("x,y,c\n").find("a header row and no rows of data"), std::string::npos);
  EXPECT_NE(table_parse_error("1\n2\n").find("line 1 has one column"), std::string::npos);
  std::string e = table_parse_error("x,y,c\n1,2,a\n3,4,a\n");
  EXPECT_NE(e.find("every row has the label 'a'"), std::string::npos) << e;
  e = table_parse_error("1,0\n2,0\n");
  EXPECT_NE(e.find("every row has the label '0'"), std::string::npos) << e;
  std::string wide;
  for (int64_t i = 0; i <= kMaxTableColumns; ++i) wide += "1,";
  wide += "0\n";
  e = table_parse_error(wide);
  EXPECT_NE(e.find("line 1 has more than 10000 columns"), std::string::npos) << e;
  e = table_parse_error("1,0\n2,99999\n");
  EXPECT_NE(e.find("100000 classes, more than the 10000"), std::string::npos) << e;
}

TEST(TableDataset, LoadsSplitsAsKerasDoesAndRecordsTheFile) {
#ifndef MIRROR_WITH_DOWNLOADS
  GTEST_SKIP() << "this build cannot compute a file's SHA-256 (configured with MIRROR_WITH_DOWNLOADS=OFF)";
#endif
  TempDir dir;
  std::string csv = "a,b,label\n";
  for (int i = 0; i < 10; ++i) csv += fmt::format("{},{},{}\n", i, -i, i % 2 ? "odd" : "even");
  write_file(dir / "rows.csv", csv);
  DatasetOptions o;
  o.name = "table";
  o.data_dir = dir / "rows.csv";
  o.seed = 1337;
  const auto d = load_dataset(o);
  EXPECT_EQ(d->info().input_shape, std::vector<int64_t>{2});
  EXPECT_EQ(d->info().kind, InputKind::kFloat);
  EXPECT_EQ(d->info().num_classes, 2);
  EXPECT_EQ(d->info().class_names, (std::vector<std::string>{"even", "odd"}));
  EXPECT_EQ(d->info().file_count, 1);
  EXPECT_EQ(d->info().content_hash.size(), 64u);
  EXPECT_EQ(d->info().content_hash, sha256_of_file(o.data_dir));
  // Keras' rule: rows shuffled by RandomState(seed), the last int(0.2 x 10) = 2 held out, in order.
  const auto order = numpy_legacy_shuffled_range(10, 1337);
  ASSERT_EQ(d->size(Split::kTrain), 8);
  ASSERT_EQ(d->size(Split::kValidation), 2);
  const auto train = d->slice(Split::kTrain, 0, 8), val = d->slice(Split::kValidation, 0, 2);
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(train.x[i][0].item<float>(), static_cast<float>(order[static_cast<size_t>(i)]));
    EXPECT_EQ(train.y[i].item<int64_t>(), order[static_cast<size_t>(i)] % 2);
  }
  for (int64_t i = 0; i < 2; ++i) EXPECT_EQ(val.x[i][0].item<float>(), static_cast<float>(order[static_cast<size_t>(8 + i)]));
  // Another seed, another split; validation_split 0: every row trains.
  o.seed = 7;
  EXPECT_FALSE(torch::equal(load_dataset(o)->slice(Split::kValidation, 0, 2).x, val.x));
  o.validation_split = 0;
  EXPECT_EQ(load_dataset(o)->size(Split::kTrain), 10);
  // Changing a byte changes the hash.
  write_file(dir / "rows.csv", csv + "10,-10,even\n");
  EXPECT_NE(load_dataset(o)->info().content_hash, d->info().content_hash);
}

TEST(TableDataset, MissingHugeAndTinyFilesAreRefused) {
  TempDir dir;
  DatasetOptions o;
  o.name = "table";
  EXPECT_NE(error_of<ConfigError>([&] { load_dataset(o); }).find("--data-dir FILE.csv"), std::string::npos);
  std::string why;
  EXPECT_FALSE(dataset_present(o, &why));
  o.data_dir = dir / "none.csv";
  EXPECT_FALSE(dataset_present(o, &why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
  EXPECT_NE(data_error([&] { load_dataset(o); }).find("does not exist"), std::string::npos);
  o.data_dir = dir.str();
  EXPECT_NE(data_error([&] { load_dataset(o); }).find("is a folder, not a CSV file"), std::string::npos);
  // A 2 GiB file (sparse: no disk used) is refused before it is read.
  o.data_dir = dir / "huge.csv";
  write_file(o.data_dir, "");
  ASSERT_EQ(::truncate(o.data_dir.c_str(), off_t{2} << 30), 0);
  const std::string huge = data_error([&] { load_dataset(o); });
  EXPECT_NE(huge.find("2.0 GiB is larger than the 1 GiB a table may be"), std::string::npos) << huge;
  // Three rows: 20% of them is no row.
  o.data_dir = dir / "tiny.csv";
  write_file(o.data_dir, "1,a\n2,b\n3,a\n");
  const std::string tiny = data_error([&] { load_dataset(o); });
  EXPECT_NE(tiny.find("validation_split 0.2 of 3 rows holds out none"), std::string::npos) << tiny;
  o.validation_split = 0;
  EXPECT_EQ(load_dataset(o)->size(Split::kTrain), 3);
}

TEST(TableDataset, TwoFeaturesAreAPointSetAsTheBuiltInOnesAre) {
  // What the trainer's decision regions and the Data tab's scatter look for.
  TempDir dir;
  std::string csv;
  for (int i = 0; i < 20; ++i) csv += fmt::format("{};{};{}\n", i * 0.1, -i * 0.1, i % 3);
  write_file(dir / "p.csv", csv);
  DatasetOptions o;
  o.name = "table";
  o.data_dir = dir / "p.csv";
  const auto table = load_dataset(o);
  DatasetOptions s;
  s.name = "spirals";
  const auto spirals = load_dataset(s);
  EXPECT_EQ(table->info().kind, spirals->info().kind);
  EXPECT_EQ(table->info().input_shape, spirals->info().input_shape);
  EXPECT_EQ(table->slice(Split::kTrain, 0, 1).x.scalar_type(), spirals->slice(Split::kTrain, 0, 1).x.scalar_type());
}
