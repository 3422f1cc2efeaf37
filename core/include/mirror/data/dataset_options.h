#pragma once
// Which dataset a run trains on, and how it is loaded or generated: plain values, no torch.

#include <cstdint>
#include <string>

namespace mirror {

struct DatasetOptions {
  std::string name = "fashion-mnist";
  std::string data_dir;     // empty: the dataset's default location
  uint64_t seed = 42;       // synthetic sets only
  int64_t train_size = 0;   // synthetic sets only; 0: the set's default
  int64_t val_size = 0;     // synthetic sets only; 0: the set's default
  int64_t classes = 0;      // spirals/blobs only; 0: the set's default
  double noise = -1;        // 2-D sets only; <0: the set's default
  // Keras text datasets (reuters, imdb): load_data's num_words / skip_top / maxlen (0: None),
  // and the pad_sequences length (0: 300 for reuters, 500 for imdb).
  int64_t num_words = 0;
  int64_t skip_top = 0;
  int64_t maxlen = 0;
  int64_t sequence_length = 0;
  int64_t min_wires_per_topic = 0;  // raw Reuters SGML; 0: Keras' 15
  double test_split = -1;           // Reuters: load_data's test_split (the validation share); <0: 0.2
  // Your own data (images, texts, table), read from data_dir with Keras' *_dataset_from_directory
  // rules. The split's shuffle uses `seed`; num_words / sequence_length are TextVectorization's
  // max_tokens / output_sequence_length for texts.
  double validation_split = -1;     // the share held out for validation; <0: 0.2
  int64_t image_height = 0;         // images: image_size; 0: Keras' 256
  int64_t image_width = 0;
  std::string color_mode;           // images: "grayscale", "rgb" or "rgba"; empty: "rgb"
  bool crop_to_aspect_ratio = false;  // images: crop to the target's aspect ratio before resizing
  bool follow_links = false;        // images/texts: follow symbolic links to class folders and files
  std::string label_column;         // table: the label column's header name or 0-based index; empty: the last
};

}  // namespace mirror
