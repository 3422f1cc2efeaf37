#pragma once
// NumPy's .npy and .npz formats, as Keras stores its text datasets: plain integer arrays, and
// object arrays of Python int lists (pickled). Nothing here executes anything from the file.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mirror {

// One array from a .npy file.
struct NpyArray {
  std::string descr;                 // numpy dtype string: "<i8", "|u1", "|O", ...
  std::vector<int64_t> shape;
  bool object = false;               // dtype 'O': `sequences` holds the items
  std::vector<int64_t> integers;     // integer dtypes, flattened in C order
  std::vector<std::vector<int64_t>> sequences;  // object arrays of int lists, flattened
  int64_t size() const;              // number of elements (product of shape)
};

// Parses .npy bytes. Integer dtypes (signed/unsigned, 1 to 8 bytes, either byte order) and
// object arrays whose items are lists of ints are supported. Throws DataError naming `what`
// (e.g. "reuters.npz: x.npy") and what was found: a bad magic string, an unsupported dtype, a
// shape that does not match the data, a pickle that is not a numpy object array.
NpyArray parse_npy(const std::string& bytes, const std::string& what);

// The .npy (version 1.0) bytes of a C-order array of `shape` whose elements are numpy dtype
// `descr` ("<f4", "<i8"): the header padded so the data starts at a multiple of 64 bytes, then
// `bytes` of data. Throws std::invalid_argument when `bytes` is not the shape's element count
// times the dtype's size.
std::string npy_bytes(const std::string& descr, const std::vector<int64_t>& shape, const void* data, size_t bytes);

// Reads the named members ("x" reads "x.npy") of an .npz archive (a zip, stored or deflated).
// Throws DataError when the file is missing, is not a zip, is truncated or corrupt, lacks a
// member, or declares a member larger than `max_member_bytes`.
std::map<std::string, NpyArray> read_npz(const std::string& path, const std::vector<std::string>& members,
                                         int64_t max_member_bytes = int64_t{1} << 31);

}  // namespace mirror
