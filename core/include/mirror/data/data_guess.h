#pragma once
// Which dataset a file or folder holds, guessed from names alone (no file is opened): Keras' .npz
// files, Reuters-21578's SGML, IDX files, a CSV table, or a folder of class folders holding images
// or .txt files (Keras' *_dataset_from_directory layout). The window asks it of a dropped path.
// Plain data, no torch.

#include <string>

namespace mirror {

struct DataGuess {
  std::string name;  // the dataset to choose; empty: no guess (keep the one chosen)
  std::string path;  // its data_dir: the folder, or the .csv file itself (absolute)
};

// The guess for `path` (a file or a folder) while `current` is chosen (an IDX folder stays
// "mnist" when that is chosen, else "fashion-mnist"). Looks at the folder's entries and at most a
// few hundred names in each of its first subfolders, never deeper; never throws on a folder it
// cannot read (no guess). Thread-safe.
DataGuess guess_data_at(const std::string& path, const std::string& current = {});

}  // namespace mirror
