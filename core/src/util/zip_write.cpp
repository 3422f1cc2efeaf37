#include "mirror/util/zip_write.h"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

#include "mirror/util/error.h"

#ifdef MIRROR_WITH_ZIP
#include <zip.h>
#endif

namespace mirror {

#ifdef MIRROR_WITH_ZIP
namespace {
[[noreturn]] void fail(const char* what, zip_error_t* error) {
  throw std::runtime_error(fmt::format("zip archive: {}: {}", what, zip_error_strerror(error)));
}
}  // namespace

std::string zip_archive(const std::vector<std::pair<std::string, std::string>>& members, bool compress) {
  zip_error_t error;
  zip_error_init(&error);
  // An empty buffer source that the archive is written into; kept past zip_close to read it back.
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (!buffer) fail("cannot make a buffer", &error);
  std::unique_ptr<zip_source_t, decltype(&zip_source_free)> keep(buffer, &zip_source_free);
  zip_source_keep(buffer);
  zip_t* archive = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
  if (!archive) fail("cannot open the buffer", &error);
  for (const auto& [name, bytes] : members) {
    // The member's bytes are copied by libzip (freep 0 would leave them to us until zip_close).
    zip_source_t* member = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    if (!member) {
      const std::string why = zip_strerror(archive);
      zip_discard(archive);
      throw std::runtime_error(fmt::format("zip archive: {}: {}", name, why));
    }
    const zip_int64_t index = zip_file_add(archive, name.c_str(), member, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      zip_source_free(member);
      const std::string why = zip_strerror(archive);
      zip_discard(archive);
      throw std::runtime_error(fmt::format("zip archive: {}: {}", name, why));
    }
    zip_set_file_compression(archive, static_cast<zip_uint64_t>(index), compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  // zip_close reads the members' bytes now: `members` outlives it.
  if (zip_close(archive) != 0) {
    const std::string why = zip_strerror(archive);
    zip_discard(archive);
    throw std::runtime_error(fmt::format("zip archive: cannot finish: {}", why));
  }
  if (zip_source_open(buffer) != 0) fail("cannot read it back", zip_source_error(buffer));
  std::string out;
  char chunk[1 << 16];
  zip_int64_t n = 0;
  while ((n = zip_source_read(buffer, chunk, sizeof chunk)) > 0) out.append(chunk, static_cast<size_t>(n));
  const bool failed = n < 0;
  zip_source_close(buffer);
  if (failed) fail("cannot read it back", zip_source_error(buffer));
  return out;
}
#else
std::string zip_archive(const std::vector<std::pair<std::string, std::string>>&, bool) {
  throw ConfigError("this build writes no zip archives (configured with MIRROR_WITH_ZIP=OFF); rebuild with libzip");
}
#endif

}  // namespace mirror
