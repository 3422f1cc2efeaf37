#pragma once
// Decoding one image file (PNG, JPEG, BMP, GIF's first frame) and resizing it the way Keras'
// image_dataset_from_directory does (tf.image.resize, bilinear, no antialiasing; smart_resize's
// centre crop for crop_to_aspect_ratio). Decoding is stb_image's (Debian's libstb-dev), with the
// size read from the header and checked before any pixel memory is taken. Light: no torch.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mirror {

// The largest image accepted: a side up to kMaxImageSide pixels and at most kMaxImagePixels pixels
// in all (a 60,000 x 60,000 header is refused before allocating its 10 GiB).
inline constexpr int64_t kMaxImageSide = 32768;
inline constexpr int64_t kMaxImagePixels = int64_t{1} << 26;  // 67 million (8192 x 8192): 256 MiB as RGBA
// An image file larger than this is refused unread: twice an uncompressed BMP of the largest image.
inline constexpr uint64_t kMaxImageFileBytes = uint64_t{512} << 20;

// Pixels as 8-bit values, row after row, `channels` values per pixel (height x width x channels).
struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  std::vector<uint8_t> pixels;
};

// Decodes `size` bytes of a PNG, JPEG, BMP or GIF (its first frame; the format is told by the
// bytes, not the name) into `channels` channels: 1 (grayscale), 3 (RGB) or 4 (RGBA; opaque alpha
// when the file has none). 16-bit PNGs become 8-bit. Grey from colour uses stb's weights
// (77 R + 150 G + 29 B) / 256; TensorFlow's libpng/libjpeg weigh slightly differently, so a
// grayscale image of a colour file may differ from Keras' by a level or two (JPEGs may too, as
// the IDCTs differ; PNG, BMP and GIF are exact). Throws DataError starting with `name` (the file)
// saying what is wrong: empty, not an image of these formats, too large, truncated or corrupt.
// Never reads outside [bytes, bytes + size). Thread-safe.
DecodedImage decode_image(const void* bytes, size_t size, int channels, const std::string& name);

// Keras' smart_resize crop: the largest window centred in a height x width image with the target's
// aspect ratio (crop_height = min(height, width * target_height / target_width), rounded down,
// at least 1; likewise the width; the offsets (height - crop_height) / 2, rounded down).
struct CropWindow {
  int64_t top = 0;
  int64_t left = 0;
  int64_t height = 0;
  int64_t width = 0;
};
CropWindow keras_crop_window(int64_t height, int64_t width, int64_t target_height, int64_t target_width);

// tf.image.resize(image, (out_height, out_width), method="bilinear", antialias=False) of the
// window `window` of `image` (the whole image for keras_crop_window-less resizing): half-pixel
// centres, edges clamped, arithmetic in float as TensorFlow's kernel does. Writes
// out_height x out_width x image.channels values in [0, 255] to `out`. Throws ConfigError when
// out_height or out_width < 1, std::invalid_argument when the window does not lie in the image.
void resize_bilinear(const DecodedImage& image, const CropWindow& window, int64_t out_height, int64_t out_width,
                     float* out);

// resize_bilinear rounded to the nearest 8-bit value (the compact form datasets keep: at most
// half a level, 0.5/255, from Keras' float result).
void resize_bilinear_u8(const DecodedImage& image, const CropWindow& window, int64_t out_height, int64_t out_width,
                        uint8_t* out);

}  // namespace mirror
