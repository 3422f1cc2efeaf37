#pragma once
// Which dataset a file or folder dropped on the Data tab holds, guessed from names alone (no file
// is opened): Keras' .npz files, Reuters-21578's SGML, IDX files, a CSV table, or a folder of
// class folders holding images or .txt files (Keras' *_dataset_from_directory layout).

#include <QString>

namespace mirror::ui {

struct DroppedData {
  QString name;  // the dataset to choose; empty: no guess (keep the one chosen)
  QString path;  // what goes in the Folder field: the folder, or the .csv file itself
};

// The guess for `path` (a file or a folder) while `current` is chosen (an IDX folder stays
// "mnist" when that is chosen, else "fashion-mnist"). Looks at the folder's entries and at most a
// few hundred names in each of its first subfolders, never deeper. Call from any thread.
DroppedData guess_dropped_data(const QString& path, const QString& current = {});

}  // namespace mirror::ui
