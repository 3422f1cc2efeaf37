#include "mirror/data/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>

#include "mirror/data/idx.h"
#include "mirror/data/keras_datasets.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
constexpr const char* kFashionDir = "/usr/share/datasets/fashion-mnist";
constexpr const char* kMnistDir = "/usr/share/datasets/mnist";

std::vector<std::string> fashion_classes() {
  return {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
}
std::vector<std::string> digit_classes() {
  std::vector<std::string> names;
  for (int d = 0; d < 10; ++d) names.push_back(std::to_string(d));
  return names;
}
}  // namespace

std::vector<DatasetDescription> list_datasets() {
  return {
      {"fashion-mnist", "Zalando's 28x28 clothing images, 10 classes (Debian: dataset-fashion-mnist)", kFashionDir},
      {"mnist", "28x28 handwritten digits, 10 classes (IDX files)", kMnistDir},
      {"reuters", "Keras' Reuters newswires (reuters.npz or the raw Reuters-21578 SGML), 46 topics", "~/.keras/datasets"},
      {"imdb", "Keras' IMDB movie reviews (imdb.npz), 2 classes", "~/.keras/datasets"},
      {"synthetic-text", "Reuters-shaped token sequences: length 300, 30,982 words, 46 topics", ""},
      {"spirals", "2-D interleaved spiral arms (3 classes by default)", ""},
      {"blobs", "2-D Gaussian clusters (3 classes by default)", ""},
      {"xor", "2-D XOR quadrants, 2 classes", ""},
      {"circles", "2-D disc inside a ring, 2 classes", ""},
  };
}

bool dataset_present(const DatasetOptions& o, std::string* why) {
  namespace fs = std::filesystem;
  auto say = [why](std::string text) {
    if (why) *why = std::move(text);
    return false;
  };
  std::error_code ec;
  if (o.name == "fashion-mnist" || o.name == "mnist") {
    const std::string dir = o.data_dir.empty() ? (o.name == "fashion-mnist" ? kFashionDir : kMnistDir) : o.data_dir;
    for (const char* f : {"train-images-idx3-ubyte", "train-images-idx3-ubyte.gz"})
      if (fs::exists(fs::path(dir) / f, ec)) return true;
    return say(fmt::format("{} has no train-images-idx3-ubyte(.gz)", dir));
  }
  if (o.name == "reuters" || o.name == "imdb") {
    const std::string file = o.name + ".npz";
    if (const char* origin = std::getenv("MIRROR_KERAS_ORIGIN"); origin && *origin) {
      const std::string base = origin;  // where downloads come from instead of Keras' server
      if (base.rfind("file://", 0) != 0) return true;
      if (fs::exists(fs::path(base.substr(7)) / file, ec)) return true;
    }
    std::vector<std::string> dirs;
    if (!o.data_dir.empty()) dirs.push_back(o.data_dir);
    try {
      dirs.push_back(keras_cache_dir());
    } catch (const ConfigError&) {  // no home folder: only the data folder can hold it
    }
    for (const auto& d : dirs)
      if (fs::exists(fs::path(d) / file, ec)) return true;
    if (o.name == "reuters" && !o.data_dir.empty())
      for (const auto& e : fs::directory_iterator(o.data_dir, ec))
        if (e.path().extension() == ".sgm") return true;
    return say(fmt::format("{} is not in {} (not downloaded yet)", file, fmt::join(dirs, " or ")));
  }
  return true;  // generated here
}

std::shared_ptr<const Dataset> load_dataset(const DatasetOptions& o) {
  if (o.name == "fashion-mnist" || o.name == "mnist") {
    const bool fashion = o.name == "fashion-mnist";
    const std::string dir = o.data_dir.empty() ? (fashion ? kFashionDir : kMnistDir) : o.data_dir;
    try {
      return load_idx_directory(o.name, dir, fashion ? fashion_classes() : digit_classes());
    } catch (const DataError& e) {
      if (!o.data_dir.empty() || !fashion) throw;
      throw DataError(fmt::format("{} (install it with: apt-get install dataset-fashion-mnist, or "
                                  "pass --data-dir)", e.what()));
    }
  }
  if (o.name == "reuters" || o.name == "imdb") {
    KerasDatasetOptions k;
    k.name = o.name;
    k.data_dir = o.data_dir;
    if (o.num_words > 0) k.load.num_words = o.num_words;
    k.load.skip_top = o.skip_top;
    if (o.maxlen > 0) k.load.maxlen = o.maxlen;
    if (o.test_split >= 0) k.load.test_split = o.test_split;
    if (o.min_wires_per_topic > 0) k.min_wires_per_topic = static_cast<int>(o.min_wires_per_topic);
    k.pad.maxlen = o.sequence_length > 0 ? o.sequence_length : (o.name == "reuters" ? 300 : 500);
    if (const char* origin = std::getenv("MIRROR_KERAS_ORIGIN")) k.origin = origin;
    return load_keras_text_dataset(k);
  }
  if (o.name == "synthetic-text") {
    SyntheticTextOptions t;
    t.seed = o.seed;
    if (o.train_size > 0) t.train_size = o.train_size;
    if (o.val_size > 0) t.val_size = o.val_size;
    if (o.classes > 0) t.classes = o.classes;
    return make_synthetic_text(t);
  }
  if (o.name == "spirals" || o.name == "blobs" || o.name == "xor" || o.name == "circles") {
    PointSetOptions p;
    p.kind = o.name;
    p.seed = o.seed;
    if (o.train_size > 0) p.train_size = o.train_size;
    if (o.val_size > 0) p.val_size = o.val_size;
    if (o.classes > 0) p.classes = o.classes;
    if (o.noise >= 0) p.noise = o.noise;
    return make_point_set(p);
  }
  std::string names;
  for (const auto& d : list_datasets()) names += (names.empty() ? "" : ", ") + d.name;
  throw ConfigError(fmt::format("unknown dataset '{}' (known: {})", o.name, names));
}

}  // namespace mirror
