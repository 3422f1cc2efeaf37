// libFuzzer target: an image file as the "images" dataset reads it (decode_image: PNG, JPEG, BMP,
// GIF through stb_image, with the size checked before decoding), then resized as the dataset
// resizes it. The first byte picks the channels (1, 3 or 4), whether to crop to the target's
// aspect ratio, and the target size; the rest is the file. Anything but a DataError escaping, a
// crash, a leak, a hang or an image that disagrees with its own size is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mirror/data/image_decode.h"
#include "mirror/util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int channels = (data[0] & 3) == 0 ? 1 : (data[0] & 3) == 1 ? 3 : 4;
  const bool crop = (data[0] & 4) != 0;
  const int64_t target_height = 1 + ((data[0] >> 3) & 3) * 5;  // 1, 6, 11 or 16
  const int64_t target_width = 1 + ((data[0] >> 5) & 7) * 3;   // 1 to 22
  try {
    const mirror::DecodedImage image = mirror::decode_image(data + 1, size - 1, channels, "fuzz-input");
    if (image.height < 1 || image.width < 1 || image.height > mirror::kMaxImageSide ||
        image.width > mirror::kMaxImageSide || image.height * image.width > mirror::kMaxImagePixels ||
        image.channels != channels ||
        image.pixels.size() != static_cast<size_t>(image.height * image.width * image.channels))
      __builtin_trap();
    const mirror::CropWindow window = crop ? mirror::keras_crop_window(image.height, image.width, target_height, target_width)
                                           : mirror::CropWindow{0, 0, image.height, image.width};
    std::vector<uint8_t> out(static_cast<size_t>(target_height * target_width * channels));
    mirror::resize_bilinear_u8(image, window, target_height, target_width, out.data());
  } catch (const mirror::DataError&) {
  }
  return 0;
}
