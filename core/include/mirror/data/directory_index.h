#pragma once
// A folder of the user's own files laid out the Keras way (one subfolder per class), listed and
// split exactly as Keras' `image_dataset_from_directory` / `text_dataset_from_directory` do, so a
// folder splits into the same training and validation files here as in Keras for the same seed.
// Light: plain values, no torch.
//
// Followed: Keras 3, keras/src/utils/dataset_utils.py (index_directory, iter_valid_files,
// index_subdirectory, get_training_or_validation_split); tf.keras 2.x lists and splits the same
// way (see index_directory's note on symbolic links for the one difference).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mirror {

struct DirectoryIndex {
  // The class folders' names, sorted by their bytes (Python's sorted() on str, for UTF-8 names):
  // label i is class_names[i].
  std::vector<std::string> class_names;
  // Every file found, as `dir` joined with its path relative to `dir` ("DIR/cat/a.png"), in
  // Keras' order before its shuffle: class by class, within a class folder by folder (sorted by
  // the folder's path) and, in a folder, sorted by name.
  std::vector<std::string> files;
  std::vector<std::string> relative_files;  // the same files relative to `dir` ("cat/a.png")
  std::vector<int64_t> labels;              // labels[i]: the class of files[i]
  // Files inside class folders that were left out because their extension is not listed, and
  // files lying directly in `dir` (Keras ignores them when labels are inferred).
  int64_t skipped = 0;
  // Number of files of each class (same length as class_names; may hold zeros).
  std::vector<int64_t> class_file_counts;
};

// Keras' `index_directory(dir, labels="inferred", formats=extensions, follow_links=...)`, before
// its shuffle (keras_split gives the shuffled split):
// - classes are the subfolders of `dir` whose names do not start with "." (a symbolic link to a
//   folder counts, as os.path.isdir follows it), sorted by name;
// - each class folder is walked recursively (os.walk): with follow_links false, symbolic links to
//   folders inside a class folder are not entered (tf.keras 2.x used tf.io.gfile.walk, which did
//   enter them); with follow_links true they are, and a link back to a folder being walked is
//   skipped (Python would loop until the path grows too long);
// - a file is kept when its name, ASCII-lowercased, ends with one of `extensions` (lower-case,
//   with the dot: ".png"). Hidden files inside class folders are kept, as Keras keeps them.
// A class folder without matching files is kept as a class with no files (Keras does the same;
// require_files_in_every_class refuses it). Throws DataError naming the folder when `dir` is
// missing, not a folder, or a folder inside it cannot be read (os.walk would skip it silently).
// Thread-safe (touches no shared state).
DirectoryIndex index_directory(const std::string& dir, const std::vector<std::string>& extensions, bool follow_links);

// Throws DataError, naming `dir` and in words that say what to change, when `index` has no class
// folder, only one class, or a class folder holding no file with one of `extensions` (`what`:
// "images", "texts"). Keras accepts one class and empty classes; a classifier cannot learn from
// either, so the workbench refuses them.
void require_files_in_every_class(const DirectoryIndex& index, const std::string& dir, const std::string& what,
                                  const std::vector<std::string>& extensions);

// Indices into an index's files.
struct KerasSplit {
  std::vector<int64_t> train;
  std::vector<int64_t> validation;
};

// Keras' split of n files listed by index_directory: the file list shuffled with
// `np.random.RandomState(seed).shuffle` (labels get the same permutation: a second RandomState
// with the same seed), then the last `int(validation_split * n)` held out for validation, in the
// shuffled order (get_training_or_validation_split). validation_split 0: no split, every file in
// train (shuffled), validation empty. Throws ConfigError when validation_split is not in [0, 1)
// or seed is above 2**32 - 1 (numpy's RandomState refuses it), DataError when validation_split
// holds out no file (Keras' training subset would then be empty: samples[:-0]) or leaves no
// training file. Pure function.
KerasSplit keras_split(int64_t n, uint64_t seed, double validation_split);

// SHA-256 (hex) over the files in the given order: for each, its path relative to `base_dir`,
// a NUL byte, its size as 8 little-endian bytes, then its bytes. So two folders with the same
// files under the same names hash alike wherever they lie. Empty when this build has no SHA-256
// (configured with MIRROR_WITH_DOWNLOADS=OFF, which drops OpenSSL). Each file is opened as
// untrusted_file.h opens one. Throws DataError naming a file that cannot be read, is not a regular
// file or is larger than `max_file_bytes`. Thread-safe.
std::string content_hash_of_files(const std::vector<std::string>& files, const std::string& base_dir,
                                  uint64_t max_file_bytes);

// The same hash built file by file, for a loader that reads each file's bytes anyway:
// add_file(relative name, bytes) in order, then hex(). hex() of `files` added in order equals
// content_hash_of_files(files, base_dir). Not thread-safe (one loader thread adds).
class ContentHash {
 public:
  ContentHash();
  ~ContentHash();
  ContentHash(const ContentHash&) = delete;
  ContentHash& operator=(const ContentHash&) = delete;
  void add_file(const std::string& relative_name, const char* bytes, size_t size);
  // The hex digest of everything added; empty without SHA-256 in this build. Call once, last.
  std::string hex();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mirror
