#include "mirror/data/npy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#ifdef MIRROR_WITH_ZIP
#include <zip.h>
#endif

#include <cctype>
#include <filesystem>
#include <memory>

#include "mirror/data/pickle.h"
#include "mirror/util/error.h"
#include "mirror/util/untrusted_file.h"

namespace mirror {

std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t bytes) {
  size_t count = 1;
  for (int64_t d : shape) count *= static_cast<size_t>(d);
  const size_t item = descr.size() > 2 ? static_cast<size_t>(std::stoul(descr.substr(2))) : 0;
  if (item == 0 || count * item != bytes)
    throw std::invalid_argument(fmt::format("npy_bytes: {} bytes for {} elements of {}", bytes, count, descr));
  // Python's tuple syntax: (), (3,), (3, 4).
  const std::string dims = fmt::format("{}{}", fmt::join(shape, ", "), shape.size() == 1 ? "," : "");
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  const size_t unpadded = 10 + header.size() + 1;  // magic, version, length; the header; '\n'
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(static_cast<const char*>(data), bytes);
  return out;
}

int64_t NpyArray::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

namespace {
constexpr int64_t kMaxElements = int64_t{1} << 34;

// The .npy header is a Python dict literal: {'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }
struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

std::string dict_value(const std::string& dict, const std::string& key, const std::string& what) {
  const auto at = dict.find("'" + key + "'");
  if (at == std::string::npos) throw DataError(fmt::format("{}: .npy header has no '{}'", what, key));
  auto colon = dict.find(':', at);
  if (colon == std::string::npos) throw DataError(fmt::format("{}: malformed .npy header", what));
  size_t start = colon + 1;
  while (start < dict.size() && dict[start] == ' ') ++start;
  if (start >= dict.size()) throw DataError(fmt::format("{}: malformed .npy header", what));
  size_t end;
  if (dict[start] == '\'') end = dict.find('\'', start + 1) + 1;
  else if (dict[start] == '(') end = dict.find(')', start) + 1;
  else end = dict.find_first_of(",}", start);
  if (end == std::string::npos || end == 0 || end <= start) throw DataError(fmt::format("{}: malformed .npy header", what));
  return dict.substr(start, end - start);
}

Header parse_header(const std::string& dict, const std::string& what) {
  Header h;
  const auto descr = dict_value(dict, "descr", what);
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
    throw DataError(fmt::format("{}: unsupported dtype {} (structured arrays are not datasets)", what, descr));
  h.descr = descr.substr(1, descr.size() - 2);
  h.fortran = dict_value(dict, "fortran_order", what) == "True";
  const auto shape = dict_value(dict, "shape", what);
  // The product of the sizes other than 0 stays below kMaxElements, checked before each multiplication:
  // a product that wrapped around (or a 0 beside absurd sizes) used to pass as an empty array.
  int64_t current = -1, nonzero = 1;
  auto too_large = [&] { return DataError(fmt::format("{}: shape {} is far larger than any dataset", what, shape)); };
  for (char ch : shape) {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      current = (current < 0 ? 0 : current) * 10 + (ch - '0');
      if (current > kMaxElements) throw too_large();
    } else if (ch == ',' || ch == ')') {
      if (current >= 0) {
        h.shape.push_back(current);
        if (current > 0 && nonzero > kMaxElements / current) throw too_large();
        if (current > 0) nonzero *= current;
      }
      current = -1;
    } else if (ch != '(' && ch != ' ' && ch != 'L') {
      throw DataError(fmt::format("{}: malformed shape {}", what, shape));
    }
  }
  return h;
}
}  // namespace

NpyArray parse_npy(const std::string& bytes, const std::string& what) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    throw DataError(fmt::format("{}: not a .npy array (bad magic string)", what));
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len, offset;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw DataError(fmt::format("{}: .npy header cut short", what));
    header_len = 0;
    for (int k = 0; k < 4; ++k) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
    offset = 12;
  } else {
    throw DataError(fmt::format("{}: .npy format version {} is not supported", what, major));
  }
  if (header_len > bytes.size() - offset) throw DataError(fmt::format("{}: .npy header runs past the end of the data", what));
  const Header h = parse_header(bytes.substr(offset, header_len), what);
  const std::string payload = bytes.substr(offset + header_len);

  NpyArray a;
  a.descr = h.descr;
  a.shape = h.shape;
  const int64_t count = a.size();
  if (h.descr == "|O" || h.descr == "O") {
    a.object = true;
    // Each int costs at least two pickle bytes, which bounds what a file of this size can hold.
    auto p = unpickle_object_array(payload, what, static_cast<int64_t>(payload.size()) / 2 + 1);
    if (p.shape != a.shape)
      throw DataError(fmt::format("{}: the header's shape and the pickled array's shape differ", what));
    a.sequences = std::move(p.items);
    return a;
  }
  // Integer arrays: "<i8", ">i4", "|u1", ...
  const char order = h.descr[0];
  const char kind = h.descr.size() >= 3 ? h.descr[1] : '?';
  const int width = h.descr.size() >= 3 ? std::atoi(h.descr.c_str() + 2) : 0;
  if ((kind != 'i' && kind != 'u') || (width != 1 && width != 2 && width != 4 && width != 8) ||
      (order != '<' && order != '>' && order != '|' && order != '='))
    throw DataError(fmt::format("{}: dtype '{}' where integer labels or ids were expected", what, h.descr));
  if (h.fortran && a.shape.size() > 1) throw DataError(fmt::format("{}: Fortran-ordered arrays are not supported", what));
  const uint64_t need = static_cast<uint64_t>(count) * static_cast<uint64_t>(width);
  if (payload.size() != need)
    throw DataError(fmt::format("{}: shape {} of '{}' needs {} bytes but the file holds {}", what,
                                count, h.descr, need, payload.size()));
  a.integers.resize(static_cast<size_t>(count));
  const auto* p = reinterpret_cast<const unsigned char*>(payload.data());
  for (int64_t e = 0; e < count; ++e) {
    uint64_t v = 0;
    for (int k = 0; k < width; ++k) {
      const int shift = order == '>' ? 8 * (width - 1 - k) : 8 * k;
      v |= static_cast<uint64_t>(p[e * width + k]) << shift;
    }
    if (kind == 'i' && width < 8 && (v >> (8 * width - 1)) & 1) v |= ~uint64_t{0} << (8 * width);
    a.integers[static_cast<size_t>(e)] = static_cast<int64_t>(v);
  }
  return a;
}

std::map<std::string, NpyArray> read_npz(const std::string& path, const std::vector<std::string>& members,
                                         int64_t max_member_bytes) {
#ifdef MIRROR_WITH_ZIP
  if (!std::filesystem::exists(path)) throw DataError(fmt::format("{}: no such file", path));
  check_before_opening(path, kMaxRecordFileBytes, "a .npz archive");  // libzip opens the path itself
  int err = 0;
  std::unique_ptr<zip_t, decltype(&zip_discard)> archive(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err),
                                                          &zip_discard);
  if (!archive) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    const std::string msg = zip_error_strerror(&ze);
    zip_error_fini(&ze);
    throw DataError(fmt::format("{}: not a readable .npz (zip) archive: {}; download it again", path, msg));
  }
  std::map<std::string, NpyArray> out;
  for (const auto& name : members) {
    const std::string member = name + ".npy";
    const std::string what = fmt::format("{}: {}", path, member);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat(archive.get(), member.c_str(), 0, &st) != 0)
      throw DataError(fmt::format("{}: the archive has no member {}", path, member));
    if (!(st.valid & ZIP_STAT_SIZE) || st.size > static_cast<zip_uint64_t>(max_member_bytes))
      throw DataError(fmt::format("{}: declares {} bytes, more than the {} allowed; the archive is corrupt", what,
                                  st.size, max_member_bytes));
    std::unique_ptr<zip_file_t, decltype(&zip_fclose)> file(zip_fopen(archive.get(), member.c_str(), 0), &zip_fclose);
    if (!file) throw DataError(fmt::format("{}: cannot open: {}", what, zip_strerror(archive.get())));
    std::string bytes(st.size, '\0');
    zip_uint64_t got = 0;
    while (got < st.size) {
      const zip_int64_t n = zip_fread(file.get(), bytes.data() + got, st.size - got);
      if (n < 0) throw DataError(fmt::format("{}: corrupt data ({}); download the file again", what, zip_file_strerror(file.get())));
      if (n == 0) break;
      got += static_cast<zip_uint64_t>(n);
    }
    if (got != st.size)
      throw DataError(fmt::format("{}: declares {} bytes but only {} could be read; the file is truncated", what, st.size, got));
    out.emplace(name, parse_npy(bytes, what));
  }
  return out;
#else
  throw DataError(fmt::format("{}: this build reads no .npz archives (configured with MIRROR_WITH_ZIP=OFF); "
                              "rebuild with libzip, or use another dataset", path));
#endif
}

}  // namespace mirror
