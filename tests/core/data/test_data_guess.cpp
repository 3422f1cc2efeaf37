// guess_data_at: which dataset a dropped file or folder holds, from names alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mirror/data/data_guess.h"
#include "../test_helpers.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;

void touch(const fs::path& p, const std::string& text = "x") {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

TEST(DataGuess, ClassFoldersOfImagesOrTextsAreOwnData) {
  testing::TempDir dir;
  const fs::path root(dir.path());
  // Images outnumber a stray notes.txt (suffixes matched ignoring case, as Keras does).
  touch(root / "mixed/cats/a.PNG");
  touch(root / "mixed/cats/b.jpg");
  touch(root / "mixed/dogs/c.jpeg");
  touch(root / "mixed/cats/notes.txt");
  EXPECT_EQ(guess_data_at((root / "mixed").string()).name, "images");
  EXPECT_EQ(guess_data_at((root / "mixed").string()).path, (root / "mixed").string());
  touch(root / "reviews/pos/1.txt");
  touch(root / "reviews/neg/2.txt");
  EXPECT_EQ(guess_data_at((root / "reviews").string()).name, "texts");
  // A folder of neither is no guess; so is a hidden class folder of images.
  touch(root / "other/a/data.bin");
  touch(root / "other/.cache/x.png");
  EXPECT_EQ(guess_data_at((root / "other").string(), "spirals").name, "");
}

TEST(DataGuess, KnownFilesNameTheirDataset) {
  testing::TempDir dir;
  const fs::path root(dir.path());
  touch(root / "Points.CSV", "x,y,label\n0,0,0\n");
  EXPECT_EQ(guess_data_at((root / "Points.CSV").string()).name, "table");
  EXPECT_EQ(guess_data_at((root / "Points.CSV").string()).path, (root / "Points.CSV").string());
  touch(root / "idx/train-images-idx3-ubyte.gz");
  const std::string idx_file = (root / "idx/train-images-idx3-ubyte.gz").string();
  EXPECT_EQ(guess_data_at(idx_file, "mnist").name, "mnist");
  EXPECT_EQ(guess_data_at(idx_file, "spirals").name, "fashion-mnist");
  EXPECT_EQ(guess_data_at(idx_file).path, (root / "idx").string());
  EXPECT_EQ(guess_data_at((root / "idx").string()).name, "fashion-mnist");
  touch(root / "sgml/reut2-000.sgm");
  EXPECT_EQ(guess_data_at((root / "sgml").string()).name, "reuters");
  touch(root / "keras/imdb.npz");
  EXPECT_EQ(guess_data_at((root / "keras/imdb.npz").string()).name, "imdb");
  EXPECT_EQ(guess_data_at((root / "keras/imdb.npz").string()).path, (root / "keras").string());
  // A folder named like a data file is not one: only a file ending in .csv is a table.
  fs::create_directories(root / "table.csv");
  EXPECT_NE(guess_data_at((root / "table.csv").string()).name, "table");
}

TEST(DataGuess, AMissingOrUnreadablePathIsNoGuess) {
  testing::TempDir dir;
  EXPECT_EQ(guess_data_at(dir / "nowhere").name, "");
  EXPECT_EQ(guess_data_at("").name, "");
}

}  // namespace
}  // namespace mirror
