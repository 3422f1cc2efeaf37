#pragma once
// The Data tab's fields for your own data (images, texts, a table), Keras'
// *_dataset_from_directory options: image size, colour mode, crop to aspect ratio, follow links,
// label column. Rows of the Data tab's form, shown only for a dataset that reads them.

#include <QString>

#include "mirror/data/dataset_options.h"
#include "mirror/data/dataset_registry.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace mirror::ui {

// What the Data tab's shared fields mean for a dataset that reads `uses`: the folder (a folder of
// class folders, a .csv file, or a built-in set's files), the validation split, the text fields.
struct DatasetFieldHelp {
  QString folder_label;  // "File" for a table (one .csv), else "Folder"
  QString folder_placeholder, folder, validation, sequence_length, num_words;
};
DatasetFieldHelp dataset_field_help(const UsedDatasetOptions& uses);

// A loader's message in the window's words: core names mirrortrain's flag ("pass --data-dir",
// "--data-dir FILE.csv"); the window names its field, labelled `field` ("Folder", "File").
QString in_window_terms(const QString& message, const QString& field);

class OwnDataFields {
 public:
  // Adds the rows to `form`, which owns their widgets. Call once, from the GUI thread.
  explicit OwnDataFields(QFormLayout* form);

  // Shows `given`'s values.
  void show(const DatasetOptions& given);
  // Writes the values shown into `into`; a field still showing what `given` had keeps `given`'s
  // value (so a default stays "default" in run.json).
  void write(const DatasetOptions& given, DatasetOptions& into) const;
  // Shows and enables the rows `uses` names, hides the others.
  void set_used(const UsedDatasetOptions& uses);

  QSpinBox* image_height() const { return height_; }
  QSpinBox* image_width() const { return width_; }
  QComboBox* color_mode() const { return color_; }
  QCheckBox* crop_to_aspect_ratio() const { return crop_; }
  QCheckBox* follow_links() const { return links_; }
  QLineEdit* label_column() const { return label_column_; }

 private:
  QFormLayout* form_;
  QWidget* size_row_;
  QSpinBox* height_;
  QSpinBox* width_;
  QComboBox* color_;
  QCheckBox* crop_;
  QCheckBox* links_;
  QLineEdit* label_column_;
};

}  // namespace mirror::ui
