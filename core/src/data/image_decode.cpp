// The one file that compiles stb_image (Debian's libstb-dev): PNG, JPEG, BMP and GIF only, the
// formats Keras' image_dataset_from_directory lists, with the size checked before decoding.
#include "mirror/data/image_decode.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "mirror/util/error.h"

// Only the formats Keras reads: less decoder for hostile bytes to reach.
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_BMP
#define STBI_ONLY_GIF
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_NO_HDR
#define STBI_MAX_DIMENSIONS 32768  // kMaxImageSide: stb refuses larger headers itself too
#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

static_assert(STBI_MAX_DIMENSIONS == mirror::kMaxImageSide, "stb's limit and ours must agree");

namespace mirror {

namespace {

enum class ImageFormat { kPng, kJpeg, kBmp, kGif, kOther };

ImageFormat sniff_format(const unsigned char* b, size_t n) {
  if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return ImageFormat::kPng;
  if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return ImageFormat::kJpeg;
  if (n >= 2 && b[0] == 'B' && b[1] == 'M') return ImageFormat::kBmp;
  if (n >= 6 && (std::memcmp(b, "GIF87a", 6) == 0 || std::memcmp(b, "GIF89a", 6) == 0)) return ImageFormat::kGif;
  return ImageFormat::kOther;
}

// What stb_image may read of a JPEG, made safe for Debian's stb_image 2.27, whose Huffman-table
// reader lacks the check upstream added later (a table of more than 256 codes overflows a heap
// buffer; found by fuzz_image). Walks the marker segments as stb does up to the first start of
// scan, checking each Huffman table; from there to the first end-of-image marker it checks every
// FF C4 (a table stb might read: entropy-coded data cannot hold one), and stb is handed the bytes
// up to that end marker only, so it reads no table that was not checked.
struct JpegCheck {
  enum Verdict { kOk, kCutOff, kBadTable } verdict = kOk;
  size_t usable = 0;  // the bytes to hand to stb
};

// A DHT segment at `at` (its FF C4): whether every table in it holds at most 256 codes.
bool jpeg_tables_fit(const unsigned char* b, size_t n, size_t at) {
  if (at + 4 > n) return true;  // stb reads zeros past the end: empty tables
  int64_t left = ((static_cast<int64_t>(b[at + 2]) << 8) | b[at + 3]) - 2;
  size_t pos = at + 4;
  while (left > 0 && pos < n) {
    int64_t codes = 0;
    for (size_t i = 1; i <= 16; ++i) codes += pos + i < n ? b[pos + i] : 0;
    if (codes > 256) return false;
    pos += 17 + static_cast<size_t>(codes);
    left -= 17 + codes;
  }
  return true;
}

JpegCheck check_jpeg(const unsigned char* b, size_t n) {
  size_t pos = 2;  // after the start-of-image marker
  while (true) {
    while (pos < n && b[pos] != 0xFF) ++pos;  // stb skips stray bytes between segments
    while (pos + 1 < n && b[pos + 1] == 0xFF) ++pos;  // fill bytes
    if (pos + 2 > n) return {JpegCheck::kCutOff, n};
    const unsigned char marker = b[pos + 1];
    if (marker == 0xDA) break;                                 // start of scan
    if (marker == 0xD9) return {JpegCheck::kOk, pos + 2};      // end of image: stb reads no further
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {  // markers without a length
      pos += 2;
      continue;
    }
    // Every other segment is skipped by its length, as stb skips the ones it knows (for the
    // others it stops with an error, reading less than this walk checks).
    if (marker == 0xC4 && !jpeg_tables_fit(b, n, pos)) return {JpegCheck::kBadTable, n};
    if (pos + 4 > n) return {JpegCheck::kCutOff, n};
    pos += 2 + ((static_cast<size_t>(b[pos + 2]) << 8) | b[pos + 3]);
  }
  for (size_t i = pos; i + 1 < n; ++i) {
    if (b[i] != 0xFF) continue;
    if (b[i + 1] == 0xC4 && !jpeg_tables_fit(b, n, i)) return {JpegCheck::kBadTable, n};
    if (b[i + 1] == 0xD9) return {JpegCheck::kOk, i + 2};
  }
  return {JpegCheck::kCutOff, n};  // no end-of-image marker: stb would pad the missing data silently
}

// Whether a PNG lacks its closing IEND chunk (a file cut short, which stb may still decode when the
// cut falls after the last image data).
bool png_cut_off(const unsigned char* b, size_t n) {
  size_t pos = 8;
  while (pos + 8 <= n) {
    const size_t length = (static_cast<size_t>(b[pos]) << 24) | (static_cast<size_t>(b[pos + 1]) << 16) |
                          (static_cast<size_t>(b[pos + 2]) << 8) | b[pos + 3];
    if (std::memcmp(b + pos + 4, "IEND", 4) == 0) return false;
    if (length > n) return true;
    pos += 12 + length;  // length, type, data, CRC
  }
  return true;
}

// GIF: the first frame's image data ends with a zero-length block; a file cut inside it is
// decoded by stb with the rest left blank. Walks the blocks to the end of the first image.
bool gif_cut_off(const unsigned char* b, size_t n) {
  if (n < 13) return true;
  size_t pos = 13;
  if (b[10] & 0x80) pos += 3 * (size_t{1} << ((b[10] & 7) + 1));  // global colour table
  auto skip_sub_blocks = [&](size_t p) -> size_t {  // returns n + 1 when cut off
    while (p < n) {
      const size_t len = b[p];
      if (len == 0) return p + 1;
      p += 1 + len;
    }
    return n + 1;
  };
  while (pos < n) {
    const unsigned char kind = b[pos];
    if (kind == 0x21) {  // extension: label, then sub-blocks
      if (pos + 2 > n) return true;
      pos = skip_sub_blocks(pos + 2);
      if (pos > n) return true;
    } else if (kind == 0x2C) {  // image descriptor (+ local colour table), LZW minimum size, sub-blocks
      if (pos + 10 > n) return true;
      const unsigned char flags = b[pos + 9];
      pos += 10;
      if (flags & 0x80) pos += 3 * (size_t{1} << ((flags & 7) + 1));
      if (pos + 1 > n) return true;
      pos = skip_sub_blocks(pos + 1);
      return pos > n;
    } else {
      return false;  // trailer or junk before any image: stb reports a missing image itself
    }
  }
  return true;
}

// BMP: uncompressed pixel rows must all lie in the file (stb reads zeros past the end).
bool bmp_cut_off(const unsigned char* b, size_t n) {
  auto u32 = [&](size_t p) {
    return static_cast<uint32_t>(b[p]) | (static_cast<uint32_t>(b[p + 1]) << 8) | (static_cast<uint32_t>(b[p + 2]) << 16) |
           (static_cast<uint32_t>(b[p + 3]) << 24);
  };
  if (n < 30) return true;
  const uint64_t offset = u32(10);
  const uint32_t header = u32(14);
  if (header < 40 || n < 54) return false;  // the old OS/2 header: left to stb
  const auto width = static_cast<int32_t>(u32(18));
  const auto height = static_cast<int32_t>(u32(22));
  const uint32_t bits = static_cast<uint32_t>(b[28]) | (static_cast<uint32_t>(b[29]) << 8);
  const uint32_t compression = u32(30);
  if (compression != 0 && compression != 3) return false;  // run-length coded: no fixed size
  const uint64_t w = static_cast<uint64_t>(width < 0 ? -static_cast<int64_t>(width) : width);
  const uint64_t h = static_cast<uint64_t>(height < 0 ? -static_cast<int64_t>(height) : height);
  const uint64_t row = (w * bits + 31) / 32 * 4;
  return offset + row * h > n;
}

// The size a header declares (0 x 0 when it is too short to say), read here so that a huge
// header is refused with its size in the message (stb only says "too large").
std::pair<int64_t, int64_t> declared_size(ImageFormat format, const unsigned char* b, size_t n) {
  auto be32 = [&](size_t p) { return (int64_t{b[p]} << 24) | (int64_t{b[p + 1]} << 16) | (int64_t{b[p + 2]} << 8) | b[p + 3]; };
  auto le16 = [&](size_t p) { return int64_t{b[p]} | (int64_t{b[p + 1]} << 8); };
  auto le32s = [&](size_t p) { return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(le16(p) | (le16(p + 2) << 16)))); };
  switch (format) {
    case ImageFormat::kPng:
      if (n >= 24) return {be32(20), be32(16)};
      break;
    case ImageFormat::kGif:
      if (n >= 10) return {le16(8), le16(6)};
      break;
    case ImageFormat::kBmp:
      if (n >= 26 && le16(14) >= 40) return {std::abs(le32s(22)), std::abs(le32s(18))};
      if (n >= 22 && le16(14) == 12) return {le16(20), le16(18)};
      break;
    case ImageFormat::kJpeg:
      for (size_t pos = 2; pos + 9 <= n;) {  // the frame header (SOF0-2), through the segments before it
        if (b[pos] != 0xFF) break;
        const unsigned char marker = b[pos + 1];
        if (marker >= 0xC0 && marker <= 0xC2) return {(int64_t{b[pos + 5]} << 8) | b[pos + 6], (int64_t{b[pos + 7]} << 8) | b[pos + 8]};
        if (marker == 0xDA || marker == 0xD9) break;
        pos += 2 + ((size_t{b[pos + 2]} << 8) | b[pos + 3]);
      }
      break;
    case ImageFormat::kOther:
      break;
  }
  return {0, 0};
}

void check_size(const std::string& name, int64_t height, int64_t width) {
  if (width > kMaxImageSide || height > kMaxImageSide || width * height > kMaxImagePixels)
    throw DataError(fmt::format("{}: {} x {} pixels is too large to decode (at most {} pixels a side and {} "
                                "million in all); shrink the image first", name, width, height, kMaxImageSide,
                                kMaxImagePixels / 1000000));
}

std::string stb_reason() {
  const char* why = stbi_failure_reason();
  return why ? why : "unknown error";
}

struct StbFree {
  void operator()(unsigned char* p) const { stbi_image_free(p); }
};
}  // namespace

DecodedImage decode_image(const void* data, size_t size, int channels, const std::string& name) {
  if (channels != 1 && channels != 3 && channels != 4)
    throw ConfigError(fmt::format("image channels must be 1, 3 or 4, got {}", channels));
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (size == 0) throw DataError(fmt::format("{}: empty file (0 bytes), not an image", name));
  if (size > static_cast<size_t>(INT32_MAX))
    throw DataError(fmt::format("{}: {} bytes; image files over 2 GiB are not read", name, size));
  const ImageFormat format = sniff_format(bytes, size);
  if (format == ImageFormat::kOther)
    throw DataError(fmt::format("{}: not a PNG, JPEG, BMP or GIF image (its first bytes say otherwise)", name));
  const auto [declared_height, declared_width] = declared_size(format, bytes, size);
  check_size(name, declared_height, declared_width);
  // JPEG first: stb's header reader already reads Huffman tables.
  size_t usable = size;
  if (format == ImageFormat::kJpeg) {
    const JpegCheck jpeg = check_jpeg(bytes, size);
    if (jpeg.verdict == JpegCheck::kBadTable)
      throw DataError(fmt::format("{}: corrupt JPEG (a Huffman table of more than 256 codes)", name));
    if (jpeg.verdict == JpegCheck::kCutOff)
      throw DataError(fmt::format("{}: truncated image (the file ends before the image data does)", name));
    usable = jpeg.usable;
  }
  const int length = static_cast<int>(usable);
  int width = 0, height = 0, file_channels = 0;
  if (!stbi_info_from_memory(bytes, length, &width, &height, &file_channels))
    throw DataError(fmt::format("{}: unreadable image header: truncated or corrupt ({})", name, stb_reason()));
  if (width < 1 || height < 1) throw DataError(fmt::format("{}: image of {} x {} pixels", name, width, height));
  check_size(name, height, width);
  if ((format == ImageFormat::kPng && png_cut_off(bytes, size)) ||
      (format == ImageFormat::kGif && gif_cut_off(bytes, size)) ||
      (format == ImageFormat::kBmp && bmp_cut_off(bytes, size)))
    throw DataError(fmt::format("{}: truncated image (the file ends before the image data does)", name));
  int w = 0, h = 0, got = 0;
  std::unique_ptr<unsigned char, StbFree> pixels(
      stbi_load_from_memory(bytes, length, &w, &h, &got, channels));
  if (!pixels) throw DataError(fmt::format("{}: corrupt or unsupported image ({})", name, stb_reason()));
  if (w != width || h != height)
    throw DataError(fmt::format("{}: the header says {} x {} pixels but the image holds {} x {}", name, width,
                                height, w, h));
  DecodedImage image;
  image.height = h;
  image.width = w;
  image.channels = channels;
  const size_t count = static_cast<size_t>(w) * static_cast<size_t>(h) * static_cast<size_t>(channels);
  image.pixels.assign(pixels.get(), pixels.get() + count);
  return image;
}

CropWindow keras_crop_window(int64_t height, int64_t width, int64_t target_height, int64_t target_width) {
  if (height < 1 || width < 1 || target_height < 1 || target_width < 1)
    throw std::invalid_argument(fmt::format("crop window of {} x {} for {} x {}", height, width, target_height,
                                            target_width));
  // smart_resize: crop_height = int(width * target_height / target_width), at most height, at least 1.
  CropWindow c;
  c.height = std::max<int64_t>(std::min(height, width * target_height / target_width), 1);
  c.width = std::max<int64_t>(std::min(width, height * target_width / target_height), 1);
  c.top = (height - c.height) / 2;
  c.left = (width - c.width) / 2;
  return c;
}

namespace {
// TensorFlow's resize_bilinear with half_pixel_centers: for each output index, the two source
// indices around its centre and the weight of the upper one, computed in float.
struct Interpolation {
  int64_t lower, upper;
  float lerp;
};

std::vector<Interpolation> interpolation_weights(int64_t out_size, int64_t in_size) {
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  std::vector<Interpolation> w(static_cast<size_t>(out_size));
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = (static_cast<float>(i) + 0.5f) * scale - 0.5f;  // the output pixel's centre, in input pixels
    const float in_floor = std::floor(in);
    w[static_cast<size_t>(i)] = {std::max<int64_t>(static_cast<int64_t>(in_floor), 0),
                                 std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1),
                                 in - in_floor};
  }
  return w;
}
}  // namespace

void resize_bilinear(const DecodedImage& image, const CropWindow& window, int64_t out_height, int64_t out_width,
                     float* out) {
  if (out_height < 1 || out_width < 1)
    throw ConfigError(fmt::format("image size must be at least 1 x 1, got {} x {}", out_height, out_width));
  if (window.top < 0 || window.left < 0 || window.height < 1 || window.width < 1 ||
      window.top + window.height > image.height || window.left + window.width > image.width)
    throw std::invalid_argument(fmt::format("window {} x {} at ({}, {}) is not inside a {} x {} image", window.height,
                                            window.width, window.top, window.left, image.height, image.width));
  const auto ys = interpolation_weights(out_height, window.height);
  const auto xs = interpolation_weights(out_width, window.width);
  const int64_t c = image.channels;
  const int64_t row = image.width * c;
  const uint8_t* base = image.pixels.data() + window.top * row + window.left * c;
  for (int64_t y = 0; y < out_height; ++y) {
    const Interpolation& iy = ys[static_cast<size_t>(y)];
    const uint8_t* top_row = base + iy.lower * row;
    const uint8_t* bottom_row = base + iy.upper * row;
    for (int64_t x = 0; x < out_width; ++x) {
      const Interpolation& ix = xs[static_cast<size_t>(x)];
      for (int64_t k = 0; k < c; ++k) {
        const float top_left = top_row[ix.lower * c + k], top_right = top_row[ix.upper * c + k];
        const float bottom_left = bottom_row[ix.lower * c + k], bottom_right = bottom_row[ix.upper * c + k];
        // TensorFlow's compute_lerp: along x on both rows, then along y.
        const float top = top_left + (top_right - top_left) * ix.lerp;
        const float bottom = bottom_left + (bottom_right - bottom_left) * ix.lerp;
        *out++ = top + (bottom - top) * iy.lerp;
      }
    }
  }
}

void resize_bilinear_u8(const DecodedImage& image, const CropWindow& window, int64_t out_height, int64_t out_width,
                        uint8_t* out) {
  if (out_height < 1 || out_width < 1)
    throw ConfigError(fmt::format("image size must be at least 1 x 1, got {} x {}", out_height, out_width));
  std::vector<float> values(static_cast<size_t>(out_height * out_width * image.channels));
  resize_bilinear(image, window, out_height, out_width, values.data());
  for (float v : values) *out++ = static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L));
}

}  // namespace mirror
