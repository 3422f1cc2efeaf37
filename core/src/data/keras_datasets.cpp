#include "mirror/data/keras_datasets.h"

#ifdef MIRROR_WITH_DOWNLOADS
#include <curl/curl.h>
#include <openssl/evp.h>
#endif
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/torch.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "mirror/data/npy.h"
#include "mirror/data/reuters_sgml.h"
#include "mirror/util/error.h"
#include "mirror/util/home.h"
#include "mirror/util/json_file.h"

namespace fs = std::filesystem;

namespace mirror {

namespace {
// The files Keras downloads, and the SHA-256 it checks them against.
constexpr const char* kKerasOrigin = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/";
constexpr const char* kReutersSha256 = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916";
constexpr const char* kImdbSha256 = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f";

#ifdef MIRROR_WITH_DOWNLOADS
struct Download {
  std::FILE* file = nullptr;
  std::string name;
  curl_off_t last_percent = -1;
};

size_t write_chunk(char* data, size_t size, size_t n, void* user) {
  auto* d = static_cast<Download*>(user);
  return std::fwrite(data, size, n, d->file) * size;
}

int progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* d = static_cast<Download*>(user);
  if (total > 0) {
    const curl_off_t percent = now * 100 / total;
    if (percent / 10 != d->last_percent / 10 || percent == 100) {
      std::fprintf(stderr, "\rdownloading %s: %3ld%% of %.1f MB", d->name.c_str(), static_cast<long>(percent),
                   static_cast<double>(total) / 1e6);
      d->last_percent = percent;
    }
  }
  return 0;
}

// Downloads url to path (via path.part); returns an error message, empty on success.
std::string download(const std::string& url, const std::string& path, const std::string& name) {
  // One part file per process: worker processes starting together may all download it; each
  // renames its complete copy into place, so a reader never sees a half-written file.
  const std::string part = path + ".part." + std::to_string(::getpid());
  Download d;
  d.name = name;
  d.file = std::fopen(part.c_str(), "wb");
  if (!d.file) return fmt::format("cannot write {}", part);
  CURL* curl = curl_easy_init();
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_chunk);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &d);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &d);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 15L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  std::fclose(d.file);
  if (d.last_percent >= 0) std::fprintf(stderr, "\n");
  if (rc != CURLE_OK) {
    std::remove(part.c_str());
    return error[0] ? error : curl_easy_strerror(rc);
  }
  std::error_code ec;
  fs::rename(part, path, ec);
  return ec ? ec.message() : "";
}
#else
std::string download(const std::string&, const std::string&, const std::string&) {
  return "this build has no downloader (configured with MIRROR_WITH_DOWNLOADS=OFF)";
}
#endif

std::vector<int64_t> as_labels(const NpyArray& a, const std::string& what) {
  if (a.object || a.shape.size() != 1) throw DataError(fmt::format("{}: labels must be a 1-D integer array", what));
  return a.integers;
}

Sequences as_sequences(NpyArray& a, const std::string& what) {
  if (!a.object || a.shape.size() != 1)
    throw DataError(fmt::format("{}: expected a 1-D object array of word-id lists, found dtype '{}'", what, a.descr));
  for (const auto& s : a.sequences)
    for (int64_t w : s)
      if (w < 0) throw DataError(fmt::format("{}: negative word id {}", what, w));
  return std::move(a.sequences);
}

// Words by token id after load_data's shift: 0 pad, start, oov, then word rank r at r + index_from.
std::shared_ptr<const std::vector<std::string>> vocabulary_from_ranks(const std::vector<std::string>& by_rank,
                                                                      const KerasTextOptions& o, int64_t num_words) {
  auto v = std::make_shared<std::vector<std::string>>(static_cast<size_t>(std::max<int64_t>(num_words, 3)), "?");
  (*v)[0] = "<pad>";
  if (o.start_char && *o.start_char < static_cast<int64_t>(v->size())) (*v)[static_cast<size_t>(*o.start_char)] = "<start>";
  if (o.oov_char && *o.oov_char < static_cast<int64_t>(v->size())) (*v)[static_cast<size_t>(*o.oov_char)] = "<oov>";
  for (size_t r = 0; r < by_rank.size(); ++r) {
    const int64_t id = static_cast<int64_t>(r) + 1 + o.index_from;
    if (id >= o.skip_top && id < static_cast<int64_t>(v->size())) (*v)[static_cast<size_t>(id)] = by_rank[r];
  }
  return v;
}

// Reads Keras' {word: rank} JSON into words by rank; empty when the file is absent or unreadable.
std::vector<std::string> read_word_index(const std::string& path) {
  std::vector<std::string> words;
  try {
    const auto j = parse_json_file(path, kWordIndexJson);
    for (const auto& [word, rank] : j.items()) {
      if (!rank.is_number_integer() || rank.get<int64_t>() < 1 || rank.get<int64_t>() > 10'000'000) continue;
      const auto r = static_cast<size_t>(rank.get<int64_t>());
      if (words.size() < r) words.resize(r, "?");
      words[r - 1] = word;
    }
  } catch (const std::exception&) {
    words.clear();
  }
  return words;
}

std::shared_ptr<const Dataset> make_dataset(const std::string& name, const std::string& source, KerasTextData d,
                                            const KerasDatasetOptions& o, std::vector<std::string> class_names,
                                            const std::vector<std::string>& words_by_rank) {
  auto x_train = pad_sequences(d.train.x, o.pad);
  auto x_test = pad_sequences(d.test.x, o.pad);
  DatasetInfo info;
  info.name = name;
  info.source = source;
  info.input_shape = {x_train.size(1)};
  info.kind = InputKind::kTokens;
  int64_t max_label = 0;
  for (int64_t y : d.train.y) max_label = std::max(max_label, y);
  for (int64_t y : d.test.y) max_label = std::max(max_label, y);
  info.num_classes = std::max<int64_t>(max_label + 1, static_cast<int64_t>(class_names.size()));
  // Every id is below num_words; the largest present + 1 is what the tutorial calls MAX_WORDS.
  int64_t max_id = std::max(x_train.numel() ? x_train.max().item<int64_t>() : 0,
                            x_test.numel() ? x_test.max().item<int64_t>() : 0);
  info.vocab_size = max_id + 1;
  info.class_names = std::move(class_names);
  if (!words_by_rank.empty()) info.vocabulary = vocabulary_from_ranks(words_by_rank, o.load, d.num_words);
  return std::make_shared<const Dataset>(std::move(info), x_train, torch::tensor(d.train.y, torch::kInt64), x_test,
                                         torch::tensor(d.test.y, torch::kInt64));
}

bool has_sgml(const std::string& dir) {
  if (dir.empty()) return false;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("reut2-", 0) == 0 && e.path().extension() == ".sgm") return true;
  return false;
}
}  // namespace

std::string keras_cache_dir() {
  if (const char* home = std::getenv("KERAS_HOME"); home && *home) return (fs::path(home) / "datasets").string();
  return (fs::path(home_dir()) / ".keras" / "datasets").string();
}

#ifdef MIRROR_WITH_DOWNLOADS
std::string sha256_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(fmt::format("{}: cannot read", path));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}
#else
std::string sha256_of_file(const std::string& path) {
  throw DataError(fmt::format("{}: this build cannot check SHA-256 (configured with MIRROR_WITH_DOWNLOADS=OFF)", path));
}
#endif

std::string find_or_download(const std::string& file_name, const std::string& data_dir, const std::string& origin,
                             const std::string& sha256, bool allow_download) {
  if (!data_dir.empty() && fs::exists(fs::path(data_dir) / file_name)) return (fs::path(data_dir) / file_name).string();
  const std::string cache = keras_cache_dir();  // throws only when it is needed and there is no home
  std::vector<std::string> tried;
  for (const std::string& dir : {data_dir, cache}) {
    if (dir.empty()) continue;
    const auto p = fs::path(dir) / file_name;
    tried.push_back(p.string());
    if (fs::exists(p)) return p.string();
  }
  const std::string url = (origin.empty() ? std::string(kKerasOrigin) : origin) + file_name;
  std::string why = "downloads are disabled";
  if (allow_download) {
    std::error_code ec;
    fs::create_directories(cache, ec);
    const std::string target = (fs::path(cache) / file_name).string();
    why = ec ? fmt::format("cannot create {}: {}", cache, ec.message()) : download(url, target, file_name);
    if (why.empty()) {
      const std::string got = sha256_of_file(target);
      if (got == sha256) return target;
      std::remove(target.c_str());
      throw DataError(fmt::format("{} downloaded from {} has SHA-256 {}, expected {}; the file was removed. "
                                  "Try again, or fetch it by hand and check it", file_name, url, got, sha256));
    }
  }
  std::string looked;
  for (const auto& t : tried) looked += (looked.empty() ? "" : ", ") + t;
  throw DataError(fmt::format("{} not found (looked at {}) and the download from {} failed ({}). On a machine with "
                              "network access, fetch that URL and put the file in {} or pass --data-dir",
                              file_name, looked, url, why, cache));
}

const std::vector<std::string>& reuters_topic_names() {
  static const std::vector<std::string> names = {
      "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee", "sugar",
      "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp",
      "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi", "iron-steel",
      "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog",
      "lead"};
  return names;
}

std::string decode_tokens(const DatasetInfo& info, const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) {
    if (id == 0) continue;
    const bool known = info.vocabulary && id > 0 && id < static_cast<int64_t>(info.vocabulary->size());
    out += (out.empty() ? "" : " ") + (known ? (*info.vocabulary)[static_cast<size_t>(id)] : std::string("?"));
  }
  return out;
}

std::shared_ptr<const Dataset> load_keras_text_dataset(const KerasDatasetOptions& o) {
  if (o.name == "reuters") {
    if (has_sgml(o.data_dir)) {
      RawReuters raw = load_reuters_sgml_dir(o.data_dir, o.min_wires_per_topic);
      auto topics = raw.topic_names;
      auto d = keras_reuters_load_data(std::move(raw.x), std::move(raw.y), o.load);
      return make_dataset("reuters", o.data_dir + " (Reuters-21578 SGML)", std::move(d), o, std::move(topics), raw.words);
    }
    const std::string path = find_or_download("reuters.npz", o.data_dir, o.origin, kReutersSha256, o.allow_download);
    auto arrays = read_npz(path, {"x", "y"});
    auto xs = as_sequences(arrays["x"], path + ": x.npy");
    auto ys = as_labels(arrays["y"], path + ": y.npy");
    auto d = keras_reuters_load_data(std::move(xs), std::move(ys), o.load);
    const auto words = read_word_index((fs::path(path).parent_path() / "reuters_word_index.json").string());
    return make_dataset("reuters", path, std::move(d), o, reuters_topic_names(), words);
  }
  if (o.name == "imdb") {
    const std::string path = find_or_download("imdb.npz", o.data_dir, o.origin, kImdbSha256, o.allow_download);
    auto arrays = read_npz(path, {"x_train", "y_train", "x_test", "y_test"});
    TextSplit train{as_sequences(arrays["x_train"], path + ": x_train.npy"), as_labels(arrays["y_train"], path + ": y_train.npy")};
    TextSplit test{as_sequences(arrays["x_test"], path + ": x_test.npy"), as_labels(arrays["y_test"], path + ": y_test.npy")};
    auto d = keras_imdb_load_data(std::move(train), std::move(test), o.load);
    const auto words = read_word_index((fs::path(path).parent_path() / "imdb_word_index.json").string());
    return make_dataset("imdb", path, std::move(d), o, {"negative", "positive"}, words);
  }
  throw ConfigError(fmt::format("unknown Keras dataset '{}' (reuters or imdb)", o.name));
}

}  // namespace mirror
