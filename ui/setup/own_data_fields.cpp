// Tested by tests/ui/setup/test_own_data.cpp.
#include "ui/setup/own_data_fields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>

#include <algorithm>

namespace mirror::ui {

namespace {
constexpr int kKerasImageSide = 256;  // image_dataset_from_directory's image_size default
constexpr int kMaxImageSide = 8192;

int shown_side(int64_t side) { return side > 0 ? static_cast<int>(std::min<int64_t>(side, kMaxImageSide)) : kKerasImageSide; }
QString shown_color(const std::string& mode) { return mode.empty() ? QString("rgb") : QString::fromStdString(mode); }
}  // namespace

QString in_window_terms(const QString& message, const QString& field) {
  static const QRegularExpression pass(R"(pass --data-dir( [A-Z][A-Z.a-z]*)?)");
  static const QRegularExpression with(R"(with --data-dir( [A-Z][A-Z.a-z]*)?)");
  static const QRegularExpression flag(R"(--data-dir( [A-Z][A-Z.a-z]*)?)");
  const QString named = QString("the Data tab's %1 field").arg(field);
  QString out = message;
  out.replace(pass, "choose it in " + named);
  out.replace(with, "in " + named);
  out.replace(flag, named);
  return out;
}

DatasetFieldHelp dataset_field_help(const UsedDatasetOptions& uses) {
  DatasetFieldHelp h;
  const bool texts = uses.validation_split && uses.sequence_length;
  h.sequence_length = texts ? "Texts: every text becomes this many token ids (TextVectorization's output_sequence_length)."
                            : "Reuters/IMDB: every sequence is padded or cut to this many tokens (pad_sequences).";
  h.num_words = texts ? "Texts: the vocabulary's size, padding and unknown words included (TextVectorization's max_tokens)."
                      : "Reuters/IMDB: keep only the most frequent words (load_data's num_words).";
  h.validation = uses.validation_split ? "The share held out for validation (validation_split), chosen as Keras does."
                                       : "Reuters: the share of newswires held out for validation (load_data's test_split).";
  h.folder_label = uses.label_column ? "File" : "Folder";
  if (uses.label_column) {
    h.folder_placeholder = "a .csv file";
    h.folder = "The CSV file: numeric feature columns and a label column, a header row if it has one.";
  } else if (uses.validation_split) {
    h.folder_placeholder = "a folder of class folders";
    h.folder = QString("The folder holding one folder per class, each with its %1 (Keras' %2_dataset_from_directory).")
                   .arg(uses.image_size ? "images (jpeg, png, bmp, gif)" : ".txt files", uses.image_size ? "image" : "text");
  } else {
    h.folder_placeholder = "default location";
    h.folder = "Folder holding the dataset's files (IDX, Keras .npz, or Reuters-21578 SGML).";
  }
  return h;
}

OwnDataFields::OwnDataFields(QFormLayout* form) : form_(form) {
  height_ = new QSpinBox;
  width_ = new QSpinBox;
  for (QSpinBox* side : {height_, width_}) {
    side->setRange(1, kMaxImageSide);
    side->setValue(kKerasImageSide);
  }
  height_->setObjectName("image-height");
  width_->setObjectName("image-width");
  height_->setToolTip("Images: every image is resized to this height (image_size; Keras' default 256).");
  width_->setToolTip("Images: every image is resized to this width (image_size; Keras' default 256).");
  size_row_ = new QWidget;
  auto* size_layout = new QHBoxLayout(size_row_);
  size_layout->setContentsMargins(0, 0, 0, 0);
  size_layout->addWidget(height_);
  size_layout->addWidget(new QLabel("×"));
  size_layout->addWidget(width_);
  size_layout->addStretch();
  form->addRow("Image size", size_row_);
  color_ = new QComboBox;
  color_->setObjectName("color-mode");
  color_->addItems({"rgb", "grayscale", "rgba"});
  color_->setToolTip("Images: the channels each image is read with (color_mode).");
  form->addRow("Colour mode", color_);
  crop_ = new QCheckBox("Crop to the size's aspect ratio");
  crop_->setObjectName("crop-to-aspect-ratio");
  crop_->setToolTip("Images: crop the largest centred window of the target's aspect ratio before resizing, rather than "
                    "stretching (crop_to_aspect_ratio).");
  form->addRow("", crop_);
  links_ = new QCheckBox("Follow symbolic links");
  links_->setObjectName("follow-links");
  links_->setToolTip("Images and texts: follow links to class folders and files (follow_links).");
  form->addRow("", links_);
  label_column_ = new QLineEdit;
  label_column_->setObjectName("label-column");
  label_column_->setPlaceholderText("the last column");
  label_column_->setToolTip("Table: the column holding the class, by its header name or 0-based index.");
  form->addRow("Label column", label_column_);
  set_used({});
}

void OwnDataFields::show(const DatasetOptions& given) {
  height_->setValue(shown_side(given.image_height));
  width_->setValue(shown_side(given.image_width));
  const int color = color_->findText(shown_color(given.color_mode));
  color_->setCurrentIndex(color >= 0 ? color : 0);
  crop_->setChecked(given.crop_to_aspect_ratio);
  links_->setChecked(given.follow_links);
  label_column_->setText(QString::fromStdString(given.label_column));
}

void OwnDataFields::write(const DatasetOptions& given, DatasetOptions& into) const {
  into.image_height = height_->value() == shown_side(given.image_height) ? given.image_height : height_->value();
  into.image_width = width_->value() == shown_side(given.image_width) ? given.image_width : width_->value();
  into.color_mode = color_->currentText() == shown_color(given.color_mode) ? given.color_mode : color_->currentText().toStdString();
  into.crop_to_aspect_ratio = crop_->isChecked();
  into.follow_links = links_->isChecked();
  into.label_column = label_column_->text().trimmed().toStdString();
}

void OwnDataFields::set_used(const UsedDatasetOptions& uses) {
  const auto row = [this](QWidget* w, bool used) {
    w->setEnabled(used);
    form_->setRowVisible(w, used);
  };
  row(size_row_, uses.image_size);
  row(color_, uses.color_mode);
  row(crop_, uses.crop_to_aspect_ratio);
  row(links_, uses.follow_links);
  row(label_column_, uses.label_column);
}

}  // namespace mirror::ui
