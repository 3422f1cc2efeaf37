// The "texts" dataset: Keras' text_dataset_from_directory, then TextVectorization adapted on the
// training split.
#include "mirror/data/text_folder.h"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <string_view>

#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/directory_index.h"
#include "mirror/data/load_progress.h"
#include "mirror/data/text_vectorization.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

namespace mirror {

namespace fs = std::filesystem;

const std::vector<std::string>& text_extensions() {
  static const std::vector<std::string> extensions{".txt"};
  return extensions;
}

namespace {

// "line L, byte B of the line" for byte `offset` of `text`, both counted from 1.
std::string line_and_column(const std::string& text, size_t offset) {
  const auto before = std::string_view(text).substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t last_newline = before.rfind('\n');
  const size_t column = last_newline == std::string_view::npos ? offset + 1 : offset - last_newline;
  return fmt::format("line {}, byte {} of the line", line, column);
}

// The bytes of one text file, checked: at most kMaxTextFileBytes, UTF-8. `shown`: the file as
// messages name it.
std::string read_text_file(const std::string& path, const std::string& shown) {
  UntrustedFile f(path, kMaxTextFileBytes);  // a FIFO or a device is refused unread
  if (f.too_large())
    throw DataError(fmt::format("texts: {} holds {:.1f} MiB; a text file may hold at most {} MiB (split it into "
                                "several files, or move it out of the folder)",
                                shown, static_cast<double>(f.size()) / (1 << 20), kMaxTextFileBytes >> 20));
  std::string bytes = f.read_all();
  if (!f.ok()) throw DataError(fmt::format("texts: {} {}", shown, f.problem()));
  if (const auto bad = first_invalid_utf8(bytes))
    throw DataError(fmt::format("texts: {} is not UTF-8 text: byte 0x{:02X} at offset {} ({}) is not part of a "
                                "UTF-8 character; save the file as UTF-8",
                                shown, static_cast<unsigned char>(bytes[*bad]), *bad, line_and_column(bytes, *bad)));
  return bytes;
}

void check_options(const TextFolderOptions& o) {
  if (o.max_tokens < 0 || o.max_tokens == 1)
    throw ConfigError(fmt::format("texts: num_words (TextVectorization's max_tokens, padding and [UNK] included) "
                                  "must be 0 (no limit) or at least 2, got {}", o.max_tokens));
  if (o.output_sequence_length < 0)
    throw ConfigError(fmt::format("texts: sequence_length must be 0 (the longest training text, {} to {}) or "
                                  "positive, got {}", kMinDefaultTextSequenceLength, kMaxDefaultTextSequenceLength, o.output_sequence_length));
  if (!(o.validation_split >= 0 && o.validation_split < 1))
    throw ConfigError(fmt::format("texts: validation_split must be in [0, 1), got {}", o.validation_split));
}

// Token ids of the texts at `which`, one row of `length` each; labels alongside.
std::pair<torch::Tensor, torch::Tensor> vectorize(const TextVectorizer& vectorizer, const std::vector<std::string>& texts,
                                                  const std::vector<int64_t>& labels, const std::vector<int64_t>& which,
                                                  int64_t length) {
  const auto n = static_cast<int64_t>(which.size());
  auto x = torch::zeros({n, length}, torch::kInt64);
  auto y = torch::empty({n}, torch::kInt64);
  auto* xp = x.data_ptr<int64_t>();
  auto* yp = y.data_ptr<int64_t>();
  for (int64_t row = 0; row < n; ++row) {
    const auto i = static_cast<size_t>(which[static_cast<size_t>(row)]);
    const auto ids = TextVectorizer::fit_length(vectorizer.ids(texts[i]), length);
    std::copy(ids.begin(), ids.end(), xp + row * length);
    yp[row] = labels[i];
  }
  return {x, y};
}
}  // namespace

std::shared_ptr<const Dataset> load_text_folder(const TextFolderOptions& o) {
  check_options(o);
  if (o.dir.empty())
    throw ConfigError("texts: give the folder with --data-dir DIR (one subfolder of .txt files per class)");
  const DirectoryIndex index = index_directory(o.dir, text_extensions(), o.follow_links);
  require_files_in_every_class(index, o.dir, "texts", text_extensions());
  const auto n = static_cast<int64_t>(index.files.size());
  const KerasSplit split = keras_split(n, o.seed, o.validation_split);

  // Every text is read once and held; adapt() and the vectorization both read them.
  const std::string what = fmt::format("reading texts from {}", terminal_text(o.dir));
  const int64_t every = std::max<int64_t>(1, n / 100);
  std::vector<std::string> texts;
  texts.reserve(static_cast<size_t>(n));
  report_load_progress(0, n, what);
  for (int64_t i = 0; i < n; ++i) {
    const std::string& file = index.files[static_cast<size_t>(i)];
    texts.push_back(read_text_file(file, terminal_text(file)));
    if ((i + 1) % every == 0 || i + 1 == n) report_load_progress(i + 1, n, what);
  }

  // adapt() on the training texts only, as a Keras user adapts on the training dataset.
  TextVocabularyBuilder builder;
  int64_t longest = 0;  // tokens in the longest training text
  for (int64_t i : split.train) longest = std::max(longest, builder.add(texts[static_cast<size_t>(i)]));
  const TextVectorizer vectorizer(builder.vocabulary(o.max_tokens));
  const int64_t length = o.output_sequence_length > 0
                             ? o.output_sequence_length
                             : std::clamp<int64_t>(longest, kMinDefaultTextSequenceLength, kMaxDefaultTextSequenceLength);

  DatasetInfo info;
  info.name = "texts";
  info.source = o.dir;
  info.input_shape = {length};
  info.kind = InputKind::kTokens;
  info.num_classes = static_cast<int64_t>(index.class_names.size());
  info.vocab_size = vectorizer.vocabulary_size();
  info.class_names = index.class_names;
  info.vocabulary = std::make_shared<const std::vector<std::string>>(vectorizer.vocabulary());
  info.file_count = n;
  info.content_hash = content_hash_of_files(index.files, o.dir, kMaxTextFileBytes);

  auto [x_train, y_train] = vectorize(vectorizer, texts, index.labels, split.train, length);
  auto [x_val, y_val] = vectorize(vectorizer, texts, index.labels, split.validation, length);
  return std::make_shared<const Dataset>(std::move(info), x_train, y_train, x_val, y_val);
}

DatasetEntry texts_entry() {
  return {
      .name = "texts",
      .summary = "your own texts: a folder with one subfolder of .txt files per class (Keras' "
                 "text_dataset_from_directory + TextVectorization)",
      .default_dir = "",  // none: the folder is always the user's own
      .uses = {.data_dir = true, .seed = true, .num_words = true, .sequence_length = true,
               .validation_split = true, .follow_links = true},
      .missing =
          [](const DatasetOptions& o) -> std::string {
            std::error_code ec;
            if (o.data_dir.empty()) return "no folder given (--data-dir DIR: one subfolder of .txt files per class)";
            if (!fs::is_directory(o.data_dir, ec)) return fmt::format("{} is not a folder", o.data_dir);
            return {};
          },
      .stand_in = "",
      .load =
          [](const DatasetOptions& o) {
            TextFolderOptions t;
            t.dir = o.data_dir;
            t.seed = o.seed;
            if (o.validation_split >= 0) t.validation_split = o.validation_split;
            t.follow_links = o.follow_links;
            t.max_tokens = o.num_words;
            t.output_sequence_length = o.sequence_length;
            return load_text_folder(t);
          },
  };
}

}  // namespace mirror
