#pragma once
// The "texts" dataset: a folder of the user's own text files read as Keras'
// `text_dataset_from_directory` reads it, then vectorized as a Keras user's
// `TextVectorization(max_tokens, output_sequence_length=...)` layer adapted on the training split.
// Light: no torch.
//
//   DIR/
//     sports/  a.txt  b.txt ...     one subfolder per class (names sorted: label 0, 1, ...)
//     weather/ c.txt ...            .txt files only (any case: .TXT too), searched recursively
//
// Followed: keras/src/utils/text_dataset_utils.py (labels="inferred", formats=(".txt",)), the
// listing and split of directory_index.h, and text_vectorization.h for the vectorization.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mirror {

class Dataset;

// The extensions text_dataset_from_directory reads (formats=(".txt",)), lower-case.
const std::vector<std::string>& text_extensions();

// A file larger than this is refused (Keras has no limit; a "text" of this size is almost always
// the wrong file, and every text is held in memory while the vocabulary is built).
inline constexpr int64_t kMaxTextFileBytes = int64_t{10} << 20;
// output_sequence_length when none is given: the longest training text's token count, but at
// most kMaxDefaultTextSequenceLength (imdb's pad length here) and at least
// kMinDefaultTextSequenceLength (the seed-reuters Conv1D stack needs 12 steps, so a folder of
// short texts still fits it). Keras' own default (None) pads each batch to its longest text,
// which a model with a Flatten cannot take.
inline constexpr int64_t kMaxDefaultTextSequenceLength = 500;
inline constexpr int64_t kMinDefaultTextSequenceLength = 16;

struct TextFolderOptions {
  std::string dir;                     // the folder holding one subfolder per class
  uint64_t seed = 42;                  // the split's shuffle (numpy RandomState), as Keras' seed
  double validation_split = 0.2;       // the share held out, in [0, 1); 0: none
  bool follow_links = false;           // follow symbolic links to folders inside class folders
  int64_t max_tokens = 0;              // TextVectorization's max_tokens (padding and OOV included); 0: None
  int64_t output_sequence_length = 0;  // 0: see kMaxDefaultTextSequenceLength
};

// Reads every .txt file under `options.dir`, splits the files as Keras does, adapts the
// vocabulary on the training texts only (a Keras user's `layer.adapt(train_ds.map(lambda x, y:
// x))`), and turns every text into `output_sequence_length` token ids (0 pads at the end, 1 is
// "[UNK]"). The splits keep Keras' shuffled order. DatasetInfo: name "texts", kind kTokens,
// input_shape {length}, vocab_size = the vocabulary's size, vocabulary (id -> word: 0 "",
// 1 "[UNK]"), class_names, file_count, content_hash.
//
// Throws ConfigError for a bad option (max_tokens 1 or negative, a negative sequence length, a
// validation_split outside [0, 1)); DataError naming the folder or file for: a missing folder,
// fewer than two class folders, a class folder without .txt files, a file that cannot be read,
// is larger than kMaxTextFileBytes or is not UTF-8 (Keras' grain reader, open(path, "r"), would
// refuse it too; its TensorFlow reader would keep the bytes and fail later, in get_vocabulary).
// An empty file is fine: a text of no tokens, all padding. A byte-order mark is kept, as Keras
// keeps it (it becomes part of the first token). Reports progress through load_progress.h.
// Thread-safe.
std::shared_ptr<const Dataset> load_text_folder(const TextFolderOptions& options);

}  // namespace mirror
