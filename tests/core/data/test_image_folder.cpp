// The "images" dataset: images the test draws itself (PNG, BMP and JPEG through stb_image_write,
// GIF written by hand), decoded, resized as tf.image.resize does, split as Keras splits, and the
// bad inputs of issue 37 refused with the file's name.
#include <gtest/gtest.h>
#include <torch/torch.h>

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#endif
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <filesystem>
#include <string>
#include <vector>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/data/dataset_registry.h"
#include "mirror/data/directory_index.h"
#include "mirror/data/image_decode.h"
#include "mirror/data/image_folder.h"
#include "mirror/data/load_progress.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

// An image to draw: height x width x channels 8-bit values.
struct Picture {
  int height, width, channels;
  std::vector<unsigned char> pixels;
};

Picture solid(int height, int width, std::vector<unsigned char> colour) {
  Picture p{height, width, static_cast<int>(colour.size()), {}};
  for (int i = 0; i < height * width; ++i) p.pixels.insert(p.pixels.end(), colour.begin(), colour.end());
  return p;
}

// A pattern no two pixels of which agree: value = (7 y + 3 x + 50 c) mod 256.
Picture pattern(int height, int width, int channels) {
  Picture p{height, width, channels, {}};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) p.pixels.push_back(static_cast<unsigned char>((7 * y + 3 * x + 50 * c) % 256));
  return p;
}

void append(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<size_t>(size));
}

std::string png(const Picture& p) {
  std::string out;
  stbi_write_png_to_func(append, &out, p.width, p.height, p.channels, p.pixels.data(), p.width * p.channels);
  return out;
}
std::string bmp(const Picture& p) {
  std::string out;
  stbi_write_bmp_to_func(append, &out, p.width, p.height, p.channels, p.pixels.data());
  return out;
}
std::string jpeg(const Picture& p) {
  std::string out;
  stbi_write_jpg_to_func(append, &out, p.width, p.height, p.channels, p.pixels.data(), /*quality=*/100);
  return out;
}

// A GIF of palette indices 0-3 (the palette: black, red, green, blue), LZW-coded with 3-bit codes
// and a clear code before every two pixels so the code width never grows; a second frame after
// the first, which Keras (and the loader) ignore.
std::string gif(int height, int width, const std::vector<int>& indices, bool second_frame = false) {
  std::string out = "GIF89a";
  auto u16 = [&](int v) {
    out += static_cast<char>(v & 0xff);
    out += static_cast<char>((v >> 8) & 0xff);
  };
  u16(width);
  u16(height);
  out += static_cast<char>(0x81);  // a global colour table of 2^(1+1) = 4 entries
  out += '\0';
  out += '\0';
  const unsigned char palette[12] = {0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255};
  out.append(reinterpret_cast<const char*>(palette), 12);
  auto frame = [&](const std::vector<int>& pixels) {
    out += ',';
    u16(0);
    u16(0);
    u16(width);
    u16(height);
    out += '\0';
    out += static_cast<char>(2);  // LZW minimum code size: codes of 3 bits, clear = 4, end = 5
    std::string data;
    uint32_t bits = 0;
    int count = 0;
    auto put = [&](int code) {
      bits |= static_cast<uint32_t>(code) << count;
      count += 3;
      while (count >= 8) {
        data += static_cast<char>(bits & 0xff);
        bits >>= 8;
        count -= 8;
      }
    };
    for (size_t i = 0; i < pixels.size(); ++i) {
      if (i % 2 == 0) put(4);
      put(pixels[i]);
    }
    put(5);
    if (count > 0) data += static_cast<char>(bits & 0xff);
    for (size_t at = 0; at < data.size(); at += 255) {
      const size_t n = std::min<size_t>(255, data.size() - at);
      out += static_cast<char>(n);
      out += data.substr(at, n);
    }
    out += '\0';
  };
  frame(indices);
  if (second_frame) frame(std::vector<int>(indices.size(), 3));
  out += ';';
  return out;
}

// The first bytes of a PNG whose header says 60,000 x 60,000 pixels (and nothing more).
std::string huge_png_header() {
  std::string out("\x89PNG\r\n\x1a\n", 8);
  const unsigned char ihdr[] = {0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60, 8, 2, 0, 0, 0,
                                0, 0, 0, 0};
  out.append(reinterpret_cast<const char*>(ihdr), sizeof ihdr);
  return out;
}

DecodedImage decode(const std::string& bytes, int channels) {
  return decode_image(bytes.data(), bytes.size(), channels, "test.img");
}

TEST(ImageDecode, LosslessFormatsGiveBackTheirPixels) {
  const Picture p = pattern(5, 7, 3);
  for (const std::string& bytes : {png(p), bmp(p)}) {
    const DecodedImage d = decode(bytes, 3);
    EXPECT_EQ(d.height, 5);
    EXPECT_EQ(d.width, 7);
    EXPECT_EQ(d.pixels, p.pixels);
  }
  const DecodedImage rgba = decode(png(p), 4);
  EXPECT_EQ(rgba.pixels[3], 255);  // opaque where the file has no alpha
  EXPECT_EQ(rgba.pixels[4], p.pixels[3]);
  // Grey from colour, with stb's weights: (77 r + 150 g + 29 b) >> 8.
  const DecodedImage grey = decode(png(solid(2, 2, {200, 100, 50})), 1);
  EXPECT_EQ(grey.channels, 1);
  EXPECT_EQ(grey.pixels[0], (77 * 200 + 150 * 100 + 29 * 50) >> 8);
}

TEST(ImageDecode, GifGivesItsFirstFrame) {
  const std::vector<int> indices = {0, 1, 2, 3, 3, 2, 1, 0, 1, 1, 2, 2};
  const DecodedImage d = decode(gif(3, 4, indices, /*second_frame=*/true), 3);
  ASSERT_EQ(d.height, 3);
  ASSERT_EQ(d.width, 4);
  const unsigned char palette[4][3] = {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}};
  for (size_t i = 0; i < indices.size(); ++i)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(d.pixels[i * 3 + c], palette[indices[i]][c]) << "pixel " << i;
}

TEST(ImageDecode, JpegComesBackCloseToWhatWasDrawn) {
  const Picture p = solid(16, 16, {30, 140, 220});
  const DecodedImage d = decode(jpeg(p), 3);
  for (size_t i = 0; i < d.pixels.size(); ++i) EXPECT_NEAR(d.pixels[i], p.pixels[i], 3) << i;
}

TEST(ImageDecode, BadBytesAreRefusedWithTheFileName) {
  const auto why = [](const std::string& bytes) {
    return testing::data_error([&] { decode_image(bytes.data(), bytes.size(), 3, "/data/cats/x.png"); });
  };
  EXPECT_NE(why("").find("/data/cats/x.png: empty file (0 bytes)"), std::string::npos) << why("");
  EXPECT_NE(why("hello, not an image").find("not a PNG, JPEG, BMP or GIF"), std::string::npos);
  EXPECT_NE(why(huge_png_header()).find("60000 x 60000 pixels is too large"), std::string::npos) << why(huge_png_header());
  const Picture p = pattern(20, 30, 3);
  // More than 256 codes in a Huffman table: Debian's stb_image 2.27 would write past its table.
  std::string bad_table = jpeg(p);
  const size_t dht = bad_table.find("\xFF\xC4");
  ASSERT_NE(dht, std::string::npos);
  for (size_t i = 0; i < 16; ++i) bad_table[dht + 5 + i] = '\xFF';
  EXPECT_NE(why(bad_table).find("/data/cats/x.png: corrupt JPEG (a Huffman table of more than 256 codes)"),
            std::string::npos) << why(bad_table);
  for (const std::string& whole : {png(p), jpeg(p), bmp(p), gif(4, 4, std::vector<int>(16, 2))}) {
    ASSERT_NO_THROW(decode(whole, 3));
    for (const double share : {0.95, 0.7, 0.5}) {
      const std::string cut = whole.substr(0, static_cast<size_t>(static_cast<double>(whole.size()) * share));
      const std::string message = why(cut);
      EXPECT_EQ(message.rfind("/data/cats/x.png: ", 0), 0u) << message;
      EXPECT_TRUE(message.find("truncated") != std::string::npos || message.find("corrupt") != std::string::npos)
          << message;
    }
  }
}

// tf.image.resize(bilinear, antialias=False) = torch's interpolate(bilinear, align_corners=False).
TEST(ImageResize, MatchesHalfPixelBilinear) {
  DecodedImage row{1, 2, 1, {0, 100}};
  float out[4];
  resize_bilinear(row, {0, 0, 1, 2}, 1, 4, out);  // centres at -0.25, 0.25, 0.75, 1.25 input pixels
  EXPECT_FLOAT_EQ(out[0], 0);
  EXPECT_FLOAT_EQ(out[1], 25);
  EXPECT_FLOAT_EQ(out[2], 75);
  EXPECT_FLOAT_EQ(out[3], 100);
  const Picture p = pattern(13, 17, 3);
  DecodedImage image{13, 17, 3, p.pixels};
  for (const auto& [h, w] : {std::pair{5, 9}, std::pair{28, 28}, std::pair{13, 40}}) {
    std::vector<float> ours(static_cast<size_t>(h * w * 3));
    resize_bilinear(image, {0, 0, 13, 17}, h, w, ours.data());
    const auto in = torch::tensor(std::vector<float>(p.pixels.begin(), p.pixels.end())).view({1, 13, 17, 3}).permute({0, 3, 1, 2});
    const auto theirs = torch::nn::functional::interpolate(
        in, torch::nn::functional::InterpolateFuncOptions().size(std::vector<int64_t>{h, w}).mode(torch::kBilinear).align_corners(false));
    const auto want = theirs.permute({0, 2, 3, 1}).contiguous();
    EXPECT_TRUE(torch::allclose(torch::tensor(ours).view({1, h, w, 3}), want, /*rtol=*/0, /*atol=*/1e-3))
        << h << " x " << w;
  }
}

TEST(ImageResize, CropsToTheTargetsAspectRatioAsSmartResize) {
  // Keras' own example: a 340 x 500 image for a 200 x 200 target keeps a 340 x 340 centred crop.
  const CropWindow c = keras_crop_window(340, 500, 200, 200);
  EXPECT_EQ(c.height, 340);
  EXPECT_EQ(c.width, 340);
  EXPECT_EQ(c.top, 0);
  EXPECT_EQ(c.left, 80);
  const CropWindow tall = keras_crop_window(101, 10, 10, 30);  // int(10 * 10 / 30) = 3 rows
  EXPECT_EQ(tall.height, 3);
  EXPECT_EQ(tall.top, 49);
  EXPECT_EQ(tall.width, 10);
}

// A folder of `per_class` images per class, each a solid grey of its own level, so an example
// tells which file it came from. The ".gif" files hold PNG bytes: the bytes tell the format, as
// in TensorFlow's decode_image.
std::vector<std::string> make_grey_folder(const fs::path& root, const std::vector<std::string>& classes, int per_class) {
  std::vector<std::string> files;
  int level = 10;
  for (const auto& c : classes) {
    fs::create_directories(root / c);
    for (int i = 0; i < per_class; ++i, level += 3) {
      const std::string name = c + "/img" + std::to_string(i) + (i % 3 == 0 ? ".png" : i % 3 == 1 ? ".bmp" : ".gif");
      const unsigned char v = static_cast<unsigned char>(level);
      const Picture p = solid(6 + i % 4, 9 - i % 3, {v, v, v});  // mixed sizes: all resized
      write_file(root / name, i % 3 == 0 ? png(p) : i % 3 == 1 ? bmp(p) : png(p));
      files.push_back(name);
    }
  }
  return files;
}

TEST(ImageFolder, LoadsClassesAndSplitsAsKeras) {
  TempDir dir;
  make_grey_folder(dir.path(), {"zebra", "Ant", "bee"}, 10);
  DatasetOptions o;
  o.name = "images";
  o.data_dir = dir.str();
  o.image_height = 4;
  o.image_width = 5;
  o.color_mode = "grayscale";
  o.seed = 7;
  std::vector<LoadProgress> progress;
  ScopedLoadProgress sink([&](const LoadProgress& p) { progress.push_back(p); });
  const auto data = load_dataset(o);
  const DatasetInfo& info = data->info();
  EXPECT_EQ(info.class_names, (std::vector<std::string>{"Ant", "bee", "zebra"}));
  EXPECT_EQ(info.input_shape, (std::vector<int64_t>{4, 5, 1}));
  EXPECT_EQ(info.file_count, 30);
  EXPECT_EQ(info.source, dir.str());
#ifdef MIRROR_WITH_DOWNLOADS
  EXPECT_EQ(info.content_hash.size(), 64u);
#endif
  ASSERT_EQ(data->size(Split::kTrain), 24);
  ASSERT_EQ(data->size(Split::kValidation), 6);  // int(0.2 * 30)
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.back().done, 30);
  EXPECT_EQ(progress.back().total, 30);

  // Each example is the solid grey of one file: find which, and compare with Keras' split.
  const DirectoryIndex index = index_directory(dir.str(), image_extensions(), false);
  const KerasSplit split = keras_split(30, 7, 0.2);
  const auto check = [&](Split s, const std::vector<int64_t>& files) {
    const Batch b = data->slice(s, 0, data->size(s));
    ASSERT_EQ(b.x.scalar_type(), torch::kFloat32);
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string& name = index.relative_files[static_cast<size_t>(files[i])];
      const int cls = name[0] == 'A' ? 0 : name[0] == 'b' ? 1 : 2;
      const int number = std::stoi(name.substr(name.find("img") + 3));
      const int level = 10 + 3 * (10 * (cls == 0 ? 1 : cls == 1 ? 2 : 0) + number);  // made zebra, Ant, bee
      EXPECT_EQ(b.y[static_cast<int64_t>(i)].item<int64_t>(), cls) << name;
      EXPECT_TRUE(torch::allclose(b.x[static_cast<int64_t>(i)], torch::full({4, 5, 1}, level / 255.0f)))
          << name << " at " << i;
    }
  };
  check(Split::kTrain, split.train);
  check(Split::kValidation, split.validation);
}

TEST(ImageFolder, ResizesAKnownPatternAndScalesToOne) {
  TempDir dir;
  for (const char* c : {"a", "b"}) fs::create_directories(dir.path() / c);
  const Picture p = pattern(8, 6, 3);
  for (int i = 0; i < 5; ++i) {
    write_file(dir.path() / "a" / ("p" + std::to_string(i) + ".png"), png(p));
    write_file(dir.path() / "b" / ("p" + std::to_string(i) + ".png"), png(p));
  }
  DatasetOptions o;
  o.name = "images";
  o.data_dir = dir.str();
  o.image_height = 3;
  o.image_width = 4;
  const auto data = load_image_folder(o);
  std::vector<float> want(3 * 4 * 3);
  resize_bilinear(DecodedImage{8, 6, 3, p.pixels}, {0, 0, 8, 6}, 3, 4, want.data());
  const Batch b = data->gather(Split::kTrain, {0});
  ASSERT_EQ(b.x.sizes(), (std::vector<int64_t>{1, 3, 4, 3}));
  const auto got = b.x.flatten();
  for (size_t i = 0; i < want.size(); ++i)  // kept as 8 bits: within half a level of the float result
    EXPECT_NEAR(got[static_cast<int64_t>(i)].item<float>() * 255, want[i], 0.5 + 1e-3) << i;
}

TEST(ImageFolder, RefusesBadInputNamingTheFile) {
  TempDir dir;
  make_grey_folder(dir.path(), {"a", "b"}, 6);
  DatasetOptions o;
  o.name = "images";
  o.data_dir = dir.str();
  o.image_height = 8;
  o.image_width = 8;
  ASSERT_NO_THROW(load_image_folder(o));
  const auto why = [&] { return testing::data_error([&] { load_image_folder(o); }); };
  write_file(dir.path() / "b/empty.png", "");
  EXPECT_NE(why().find((dir / "b/empty.png") + ": empty file"), std::string::npos) << why();
  write_file(dir.path() / "b/empty.png", huge_png_header());
  EXPECT_NE(why().find((dir / "b/empty.png") + ": 60000 x 60000 pixels is too large"), std::string::npos) << why();
  const std::string whole = png(pattern(30, 30, 3));
  write_file(dir.path() / "b/empty.png", whole.substr(0, whole.size() / 2));
  EXPECT_NE(why().find((dir / "b/empty.png") + ": truncated"), std::string::npos) << why();
  write_file(dir.path() / "b/empty.png", "GIF89a, but nothing else");
  EXPECT_NE(why().find(dir / "b/empty.png"), std::string::npos) << why();
  fs::remove(dir.path() / "b/empty.png");
  ASSERT_NO_THROW(load_image_folder(o));
  fs::create_directories(dir.path() / "c");
  EXPECT_NE(why().find("the class folder 'c' holds no images"), std::string::npos) << why();
  o.color_mode = "cmyk";
  EXPECT_NE(testing::error_of<ConfigError>([&] { load_image_folder(o); }).find("color_mode"), std::string::npos);
}

TEST(ImageFolder, RefusesASetTooLargeForMemoryAndSaysWhatWouldFit) {
  const uint64_t eight_gib = uint64_t{8} << 30;
  EXPECT_EQ(image_memory_problem(1000, 256, 256, 3, eight_gib), "");
  const std::string why = image_memory_problem(50000, 256, 256, 3, eight_gib);
  // 4 GiB / (50,000 x 3) = 28,633 bytes an image: 169 x 169.
  EXPECT_NE(why.find("--image-size 169x169 would fit"), std::string::npos) << why;
  EXPECT_NE(why.find("9.2 GiB"), std::string::npos) << why;
}

TEST(ImageFolder, IsInTheRegistryWithItsOptions) {
  const DatasetEntry* e = find_dataset("images");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->uses.data_dir && e->uses.validation_split && e->uses.image_size && e->uses.color_mode &&
              e->uses.crop_to_aspect_ratio && e->uses.follow_links && e->uses.seed);
  DatasetOptions o;
  o.name = "images";
  EXPECT_FALSE(dataset_present(o));
}

TEST(Dataset, HandsOutEightBitInputsAsFloatsInZeroToOne) {
  DatasetInfo info;
  info.name = "u8";
  info.input_shape = {2};
  info.num_classes = 2;
  const auto x = torch::tensor(std::vector<uint8_t>{0, 255, 51, 102}).view({2, 2});
  const Dataset d(info, x, torch::tensor(std::vector<int64_t>{0, 1}), x.slice(0, 0, 0), torch::empty({0}, torch::kInt64));
  const Batch g = d.gather(Split::kTrain, {1, 0});
  EXPECT_EQ(g.x.scalar_type(), torch::kFloat32);
  EXPECT_TRUE(torch::allclose(g.x, torch::tensor({0.2f, 0.4f, 0.0f, 1.0f}).view({2, 2})));
  EXPECT_TRUE(torch::allclose(d.slice(Split::kTrain, 0, 1).x, torch::tensor({0.0f, 1.0f}).view({1, 2})));
}

}  // namespace
}  // namespace mirror
