#pragma once
// A restricted unpickler for exactly what numpy writes for an object array of int lists.

#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

// The items of a pickled numpy object array whose items are lists of Python ints, in C order,
// with the array's shape. Accepts only the opcodes numpy and CPython emit for such an array
// (protocols 2 to 5) and only the globals numpy.core.multiarray._reconstruct, numpy.ndarray,
// numpy.dtype and _codecs.encode; it calls nothing — each is interpreted, not executed. Every
// length read from the stream is checked against the bytes that remain before anything is
// allocated, and the total number of ints is bounded by `max_ints`. Throws DataError naming
// `what` and the offending opcode, global or item.
struct PickledObjectArray {
  std::vector<int64_t> shape;
  std::vector<std::vector<int64_t>> items;
};
PickledObjectArray unpickle_object_array(const std::string& pickle, const std::string& what, int64_t max_ints);

}  // namespace mirror
