#include "mirror/data/directory_index.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <utility>

#include "mirror/data/keras_text.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"
#include "mirror/util/untrusted_text.h"

#ifdef MIRROR_WITH_DOWNLOADS
#include <openssl/evp.h>
#endif

namespace mirror {

namespace {
namespace fs = std::filesystem;

std::string ascii_lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool has_extension(const std::string& name, const std::vector<std::string>& extensions) {
  const std::string lower = ascii_lower(name);
  for (const std::string& ext : extensions)
    if (lower.size() >= ext.size() && lower.compare(lower.size() - ext.size(), ext.size(), ext) == 0) return true;
  return false;
}

// Python's os.path.join(a, b) for a relative b.
std::string python_path_join(const std::string& a, const std::string& b) {
  if (a.empty() || a.back() == '/') return a + b;
  return a + "/" + b;
}

struct FolderId {
  dev_t dev;
  ino_t ino;
  bool operator==(const FolderId& o) const { return dev == o.dev && ino == o.ino; }
};

// One class folder walked as os.walk walks it: every folder's matching files, keyed by the
// folder's path relative to the data folder (iter_valid_files sorts by that path).
struct ClassWalk {
  const std::vector<std::string>& extensions;
  bool follow_links;
  std::vector<std::pair<std::string, std::vector<std::string>>> folders;  // (relative path, file names)
  int64_t skipped = 0;

  void walk(const fs::path& folder, const std::string& relative, std::vector<FolderId>& ancestors) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) == 0) {
      const FolderId id{st.st_dev, st.st_ino};
      // A link back to a folder being walked (only reachable by following links) would never end.
      if (std::find(ancestors.begin(), ancestors.end(), id) != ancestors.end()) return;
      ancestors.push_back(id);
    } else {
      ancestors.push_back(FolderId{0, 0});
    }
    std::error_code ec;
    fs::directory_iterator it(folder, ec);
    if (ec) throw DataError(fmt::format("cannot read the folder {}: {}", terminal_text(folder.string()), ec.message()));
    std::vector<std::string> files;
    std::vector<std::string> subfolders;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      const fs::directory_entry& entry = *it;
      const std::string name = entry.path().filename().string();
      std::error_code kind_ec;
      // os.walk's entry.is_dir(): follows links; a broken link (or a failed stat) is a file.
      if (entry.is_directory(kind_ec)) {
        std::error_code link_ec;
        if (follow_links || !entry.is_symlink(link_ec)) subfolders.push_back(name);
      } else if (has_extension(name, extensions)) {
        files.push_back(name);
      } else {
        ++skipped;
      }
    }
    if (ec) throw DataError(fmt::format("cannot read the folder {}: {}", terminal_text(folder.string()), ec.message()));
    std::sort(files.begin(), files.end());
    folders.emplace_back(relative, std::move(files));
    for (const std::string& sub : subfolders) walk(folder / sub, python_path_join(relative, sub), ancestors);
    ancestors.pop_back();
  }
};

std::string extension_list(const std::vector<std::string>& extensions) {
  std::string out;
  for (const auto& e : extensions) out += (out.empty() ? "" : " ") + e;
  return out;
}
}  // namespace

DirectoryIndex index_directory(const std::string& dir, const std::vector<std::string>& extensions, bool follow_links) {
  std::error_code ec;
  if (dir.empty()) throw DataError("no data folder given: pass --data-dir with one subfolder per class");
  if (!fs::exists(dir, ec)) throw DataError(fmt::format("{}: no such folder", dir));
  if (!fs::is_directory(dir, ec))
    throw DataError(fmt::format("{}: not a folder (expected a folder with one subfolder per class)", dir));

  DirectoryIndex index;
  fs::directory_iterator it(dir, ec);
  if (ec) throw DataError(fmt::format("cannot read the folder {}: {}", dir, ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code kind_ec;
    // os.path.isdir follows links: a link to a folder is a class, whatever follow_links says.
    if (it->is_directory(kind_ec)) {
      if (name.rfind('.', 0) != 0) index.class_names.push_back(name);
    } else {
      ++index.skipped;  // a file beside the class folders: ignored when labels are inferred
    }
  }
  if (ec) throw DataError(fmt::format("cannot read the folder {}: {}", dir, ec.message()));
  std::sort(index.class_names.begin(), index.class_names.end());

  for (size_t label = 0; label < index.class_names.size(); ++label) {
    const std::string& name = index.class_names[label];
    ClassWalk walk{extensions, follow_links, {}, 0};
    std::vector<FolderId> ancestors;
    walk.walk(fs::path(dir) / name, name, ancestors);
    // iter_valid_files: sorted(walk, key=root), then sorted(files) within each root. The roots
    // share the data folder's prefix, so sorting the relative paths gives the same order.
    std::stable_sort(walk.folders.begin(), walk.folders.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t count = 0;
    for (const auto& [folder, names] : walk.folders) {
      for (const std::string& file : names) {
        const std::string relative = python_path_join(folder, file);
        index.relative_files.push_back(relative);
        index.files.push_back(python_path_join(dir, relative));
        index.labels.push_back(static_cast<int64_t>(label));
        ++count;
      }
    }
    index.class_file_counts.push_back(count);
    index.skipped += walk.skipped;
  }
  return index;
}

void require_files_in_every_class(const DirectoryIndex& index, const std::string& dir, const std::string& what,
                                  const std::vector<std::string>& extensions) {
  if (index.class_names.empty())
    throw DataError(fmt::format("{}: no class folders. Put the {} of each class in a subfolder named for the class "
                                "({}/cats/..., {}/dogs/...)", dir, what, dir, dir));
  if (index.class_names.size() == 1)
    throw DataError(fmt::format("{}: only one class folder ('{}'); a classifier needs at least two. Add a subfolder "
                                "of {} for each other class", dir, terminal_text(index.class_names[0]), what));
  for (size_t i = 0; i < index.class_names.size(); ++i)
    if (index.class_file_counts[i] == 0)
      throw DataError(fmt::format("{}: the class folder '{}' holds no {} (looked for {}). Keras would keep it as a "
                                  "class with no examples; add {} to it or remove it",
                                  dir, terminal_text(index.class_names[i]), what, extension_list(extensions), what));
}

KerasSplit keras_split(int64_t n, uint64_t seed, double validation_split) {
  if (!(validation_split >= 0 && validation_split < 1))
    throw ConfigError(fmt::format("validation_split must be in [0, 1), got {}", validation_split));
  if (seed > 0xffffffffull)
    throw ConfigError(fmt::format("seed must be in [0, 2**32 - 1] (numpy's RandomState), got {}", seed));
  // index_directory: rng = np.random.RandomState(seed); rng.shuffle(file_paths).
  std::vector<int64_t> order = numpy_legacy_shuffled_range(n, static_cast<uint32_t>(seed));
  KerasSplit split;
  if (validation_split == 0) {  // `if not validation_split: return samples, labels`
    split.train = std::move(order);
    return split;
  }
  // get_training_or_validation_split: num_val_samples = int(validation_split * len(samples)),
  // training samples[:-num_val_samples], validation samples[-num_val_samples:].
  const auto held_out = static_cast<int64_t>(validation_split * static_cast<double>(n));
  if (held_out == 0)
    throw DataError(fmt::format("validation_split {} of {} files holds out none (int({} x {}) = 0), and Keras' "
                                "training subset would then be empty; add files or raise validation_split",
                                validation_split, n, validation_split, n));
  if (held_out >= n)
    throw DataError(fmt::format("validation_split {} of {} files leaves no file for training", validation_split, n));
  split.train.assign(order.begin(), order.end() - held_out);
  split.validation.assign(order.end() - held_out, order.end());
  return split;
}

#ifdef MIRROR_WITH_DOWNLOADS
struct ContentHash::Impl {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
};

ContentHash::ContentHash() : impl_(std::make_unique<Impl>()) {
  EVP_DigestInit_ex(impl_->ctx.get(), EVP_sha256(), nullptr);
}

void ContentHash::add_file(const std::string& relative_name, const char* bytes, size_t size) {
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>((static_cast<uint64_t>(size) >> (8 * i)) & 0xff);
  EVP_DigestUpdate(impl_->ctx.get(), relative_name.data(), relative_name.size());
  EVP_DigestUpdate(impl_->ctx.get(), "", 1);  // the NUL after the name
  EVP_DigestUpdate(impl_->ctx.get(), length, sizeof length);
  EVP_DigestUpdate(impl_->ctx.get(), bytes, size);
}

std::string ContentHash::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(impl_->ctx.get(), digest, &len);
  std::string out;
  for (unsigned int i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}
#else
struct ContentHash::Impl {};
ContentHash::ContentHash() = default;
void ContentHash::add_file(const std::string&, const char*, size_t) {}
std::string ContentHash::hex() { return {}; }
#endif

ContentHash::~ContentHash() = default;

std::string content_hash_of_files(const std::vector<std::string>& files, const std::string& base_dir,
                                  uint64_t max_file_bytes) {
  ContentHash hash;
  for (const std::string& file : files) {
    const std::string bytes = read_untrusted_file(file, max_file_bytes);
    hash.add_file(fs::path(file).lexically_relative(base_dir).generic_string(), bytes.data(), bytes.size());
  }
  return hash.hex();
}

}  // namespace mirror
