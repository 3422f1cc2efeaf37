#pragma once
// Writing Protocol Buffers' wire format by hand, for the two formats we emit (TensorBoard events,
// ONNX models): a few kinds of field are all they need, and no protobuf runtime is linked.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace mirror::wire {

inline void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// A fixed-size value in little-endian order (x86-64 and aarch64 are little-endian, as the format is).
template <typename T>
void put_le(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

inline void put_tag(std::string& out, int field, int wire_type) {
  put_varint(out, static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wire_type));
}

// Field kinds: 0 varint, 1 fixed 64-bit, 2 length-delimited, 5 fixed 32-bit.
inline void put_varint_field(std::string& out, int field, uint64_t v) {
  put_tag(out, field, 0);
  put_varint(out, v);
}
// int32/int64 fields: negative values as ten-byte two's complement, as protobuf does.
inline void put_int_field(std::string& out, int field, int64_t v) { put_varint_field(out, field, static_cast<uint64_t>(v)); }
inline void put_float_field(std::string& out, int field, float v) {
  put_tag(out, field, 5);
  put_le(out, v);
}
inline void put_double_field(std::string& out, int field, double v) {
  put_tag(out, field, 1);
  put_le(out, v);
}
// A string, bytes or an embedded message.
inline void put_bytes_field(std::string& out, int field, const std::string& bytes) {
  put_tag(out, field, 2);
  put_varint(out, bytes.size());
  out += bytes;
}
inline void put_bytes_field(std::string& out, int field, const void* data, size_t size) {
  put_tag(out, field, 2);
  put_varint(out, size);
  out.append(static_cast<const char*>(data), size);
}
// A packed repeated int64 field.
inline void put_packed_ints(std::string& out, int field, const std::vector<int64_t>& values) {
  std::string packed;
  for (int64_t v : values) put_varint(packed, static_cast<uint64_t>(v));
  put_bytes_field(out, field, packed);
}

}  // namespace mirror::wire
