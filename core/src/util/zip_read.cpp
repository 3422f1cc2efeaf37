#include "mirror/util/zip_read.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <memory>

#include "mirror/util/error.h"
#include "mirror/util/untrusted_text.h"

#ifdef MIRROR_WITH_ZIP
#include <sys/stat.h>
#include <zip.h>
#endif

namespace mirror {

#ifdef MIRROR_WITH_ZIP
namespace {
bool allowed_name(const std::string& name, const std::vector<std::string>& allowed) {
  return std::any_of(allowed.begin(), allowed.end(), [&name](const std::string& a) {
    return a == name || (!a.empty() && a.back() == '/' && name.compare(0, a.size(), a) == 0);
  });
}

// Why `name` may not be an entry's name, or "".
std::string bad_name(const std::string& name) {
  if (name.empty()) return "has no name";
  if (name.front() == '/') return "is an absolute path";
  if (name.find('\\') != std::string::npos) return "holds a backslash";
  if (std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return "holds a control character";
  size_t start = 0;
  while (start <= name.size()) {  // any ".." part climbs out of the folder it is unpacked in
    const size_t end = std::min(name.find('/', start), name.size());
    if (name.compare(start, end - start, "..") == 0 && end - start == 2) return "climbs out of its folder (\"..\")";
    start = end + 1;
  }
  return "";
}
}  // namespace

std::map<std::string, std::string> read_zip_members(const std::string& archive, const std::string& what,
                                                    const std::vector<std::string>& wanted,
                                                    const std::vector<std::string>& allowed, int64_t max_entries,
                                                    uint64_t max_member_bytes) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(archive.data(), archive.size(), 0, &error);
  if (!source) throw DataError(fmt::format("{}: cannot be read as a zip archive: {}", what, zip_error_strerror(&error)));
  zip_t* opened = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
  if (!opened) {
    zip_source_free(source);
    const std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    throw DataError(fmt::format("{}: not a readable zip archive ({}); is it a .keras file?", what, why));
  }
  std::unique_ptr<zip_t, decltype(&zip_discard)> zip(opened, &zip_discard);
  const zip_int64_t entries = zip_get_num_entries(zip.get(), 0);
  if (entries < 0 || entries > max_entries)
    throw DataError(fmt::format("{}: holds {} entries, more than the {} expected; not read", what, entries, max_entries));
  std::map<std::string, std::string> out;
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(entries); ++i) {
    const char* raw = zip_get_name(zip.get(), i, ZIP_FL_ENC_RAW);
    const std::string name = raw ? raw : "";
    const std::string shown = terminal_text(name);
    if (const std::string why = bad_name(name); !why.empty())
      throw DataError(fmt::format("{}: entry {} \"{}\" {}; not read", what, i, shown, why));
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(zip.get(), i, 0, &opsys, &attributes) == 0 && opsys == ZIP_OPSYS_UNIX &&
        S_ISLNK(attributes >> 16))
      throw DataError(fmt::format("{}: entry \"{}\" is a symbolic link; not read", what, shown));
    if (!allowed_name(name, allowed))
      throw DataError(fmt::format("{}: entry \"{}\" is not one a Keras file holds ({}); not read", what, shown,
                                  fmt::join(allowed, ", ")));
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip.get(), i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE))
      throw DataError(fmt::format("{}: entry \"{}\" has no readable size", what, shown));
    if (st.size > max_member_bytes)
      throw DataError(fmt::format("{}: entry \"{}\" declares {} bytes, more than the {} allowed; not read", what, shown,
                                  st.size, max_member_bytes));
    std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen_index(zip.get(), i, 0), &zip_fclose);
    if (!file) throw DataError(fmt::format("{}: entry \"{}\" cannot be opened: {}", what, shown, zip_strerror(zip.get())));
    std::string bytes(st.size, '\0');
    zip_uint64_t got = 0;
    while (got < st.size) {  // never more than declared: a member that inflates further is cut, then refused
      const zip_int64_t n = zip_fread(file.get(), bytes.data() + got, st.size - got);
      if (n < 0) throw DataError(fmt::format("{}: entry \"{}\" is corrupt ({})", what, shown, zip_file_strerror(file.get())));
      if (n == 0) break;
      got += static_cast<zip_uint64_t>(n);
    }
    if (got != st.size)
      throw DataError(fmt::format("{}: entry \"{}\" declares {} bytes but holds {}; the file is truncated", what, shown,
                                  st.size, got));
    out[name] = std::move(bytes);
  }
  for (const auto& w : wanted)
    if (!out.count(w)) throw DataError(fmt::format("{}: has no {}; is it a .keras file?", what, w));
  return out;
}
#else
std::map<std::string, std::string> read_zip_members(const std::string&, const std::string& what,
                                                    const std::vector<std::string>&, const std::vector<std::string>&,
                                                    int64_t, uint64_t) {
  throw ConfigError(fmt::format("{}: this build reads no zip archives (configured with MIRROR_WITH_ZIP=OFF)", what));
}
#endif

}  // namespace mirror
