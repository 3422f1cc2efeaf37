#include "mirror/data/data_guess.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "mirror/data/image_folder.h"
#include "mirror/data/text_folder.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
constexpr int kMaxClassFolders = 100;  // looked into
constexpr int kMaxNamesPerFolder = 300;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool listed(const std::vector<std::string>& extensions, const std::string& extension) {
  return std::find(extensions.begin(), extensions.end(), lower(extension)) != extensions.end();
}

// Whether `folder` holds a file (not a folder) whose name starts with `prefix` and ends with `suffix`.
bool holds_file(const fs::path& folder, const std::string& prefix, const std::string& suffix = {}) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, fs::directory_options::skip_permission_denied, ec)) {
    const std::string name = e.path().filename().string();
    std::error_code kind;
    if (starts_with(name, prefix) && ends_with(name, suffix) && e.is_regular_file(kind)) return true;
  }
  return false;
}

// The class folders of `folder`, in name order, at most kMaxClassFolders.
std::vector<fs::path> class_folders(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, fs::directory_options::skip_permission_denied, ec)) {
    std::error_code kind;
    const std::string name = e.path().filename().string();
    if (e.is_directory(kind) && !name.empty() && name[0] != '.') out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  if (out.size() > kMaxClassFolders) out.resize(kMaxClassFolders);
  return out;
}

// "images" or "texts" by what the class folders of `folder` hold; empty when they hold neither.
std::string own_data_kind(const fs::path& folder) {
  int images = 0, texts = 0;
  for (const auto& c : class_folders(folder)) {
    std::error_code ec;
    int n = 0;
    for (auto it = fs::directory_iterator(c, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::directory_iterator() && n < kMaxNamesPerFolder; it.increment(ec), ++n) {
      std::error_code kind;
      if (!it->is_regular_file(kind)) continue;
      const std::string extension = it->path().extension().string();
      if (listed(image_extensions(), extension)) ++images;
      else if (listed(text_extensions(), extension)) ++texts;
    }
  }
  if (images > 0 && images >= texts) return "images";
  if (texts > 0) return "texts";
  return {};
}
}  // namespace

DataGuess guess_data_at(const std::string& path, const std::string& current) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  const std::string file = lower(p.filename().string());
  const bool is_dir = fs::is_directory(p, ec);
  if (!is_dir && fs::is_regular_file(p, ec) && ends_with(file, ".csv")) return {"table", p.string()};
  DataGuess g;
  const fs::path folder = is_dir ? p : p.parent_path();
  g.path = folder.string();
  if (starts_with(file, "reuters") || holds_file(folder, "reut2-", ".sgm")) g.name = "reuters";
  else if (starts_with(file, "imdb")) g.name = "imdb";
  else if (holds_file(folder, "train-images-idx3-ubyte")) g.name = current == "mnist" ? "mnist" : "fashion-mnist";
  else if (is_dir) g.name = own_data_kind(folder);
  return g;
}

}  // namespace mirror
