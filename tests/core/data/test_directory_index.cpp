// A folder of the user's own files listed and split as Keras lists and splits it
// (keras/src/utils/dataset_utils.py), checked against a Python reimplementation of Keras' rule
// (tests/tools/keras_directory_split.py) and numpy's own numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "mirror/data/directory_index.h"
#include "mirror/data/load_progress.h"
#include "mirror/util/error.h"
#include "test_helpers.h"
#include "util/python_runner.h"
#include "test_paths.h"

namespace mirror {
namespace {
namespace fs = std::filesystem;
using testing::TempDir;
using testing::write_file;

const std::vector<std::string> kImageExtensions = {".bmp", ".gif", ".jpeg", ".jpg", ".png"};

// A folder with what Keras' listing has to get right: class names that sort by bytes (upper case
// first), a nested folder whose name sorts around "/" ("sub" < "sub-x" < "sub/deeper"), upper-case
// extensions, hidden files and folders, files that are not images, and a file beside the classes.
void make_tricky_tree(const fs::path& root) {
  for (const char* d : {"cat", "Dog", "cat/sub", "cat/sub/deeper", "cat/sub-x", ".hidden-class", "Dog/.hidden"})
    fs::create_directories(root / d);
  for (const char* f : {"cat/b.png", "cat/a.PNG", "cat/c.jpeg", "cat/notes.txt", "cat/.dot.png", "cat/sub/z.gif",
                        "cat/sub/deeper/y.bmp", "cat/sub-x/x.jpg", "cat/sub-x/w.JPG", "Dog/1.png", "Dog/10.png",
                        "Dog/2.png", "Dog/.hidden/h.png", "Dog/image.png.bak", ".hidden-class/q.png", "top.png"})
    write_file(root / f, "x");
}

TEST(DirectoryIndex, ListsClassesAndFilesInKerasOrder) {
  TempDir dir;
  make_tricky_tree(dir.path());
  const DirectoryIndex index = index_directory(dir.str(), kImageExtensions, /*follow_links=*/false);
  EXPECT_EQ(index.class_names, (std::vector<std::string>{"Dog", "cat"}));
  const std::vector<std::string> want = {"Dog/1.png",       "Dog/10.png",     "Dog/2.png",
                                         "Dog/.hidden/h.png", "cat/.dot.png", "cat/a.PNG",
                                         "cat/b.png",       "cat/c.jpeg",     "cat/sub/z.gif",
                                         "cat/sub-x/w.JPG", "cat/sub-x/x.jpg", "cat/sub/deeper/y.bmp"};
  EXPECT_EQ(index.relative_files, want);
  ASSERT_EQ(index.files.size(), want.size());
  EXPECT_EQ(index.files[0], dir.str() + "/Dog/1.png");
  EXPECT_EQ(index.labels, (std::vector<int64_t>{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(index.class_file_counts, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(index.skipped, 3);  // notes.txt, image.png.bak, top.png
}

TEST(DirectoryIndex, FollowsLinkedFoldersOnlyWhenAsked) {
  TempDir dir;
  fs::create_directories(dir.path() / "data/a");
  fs::create_directories(dir.path() / "data/b");
  fs::create_directories(dir.path() / "elsewhere/inner");
  write_file(dir.path() / "data/a/1.png", "x");
  write_file(dir.path() / "elsewhere/2.png", "x");
  write_file(dir.path() / "elsewhere/inner/3.png", "x");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "data/b/linked");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "data/c");  // a linked class folder
  fs::create_directory_symlink(dir.path() / "data/a", dir.path() / "data/a/loop");  // a link back up
  const std::string data = dir / "data";
  const DirectoryIndex plain = index_directory(data, kImageExtensions, false);
  EXPECT_EQ(plain.class_names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(plain.relative_files, (std::vector<std::string>{"a/1.png", "c/2.png", "c/inner/3.png"}));
  const DirectoryIndex followed = index_directory(data, kImageExtensions, true);
  EXPECT_EQ(followed.relative_files, (std::vector<std::string>{"a/1.png", "b/linked/2.png", "b/linked/inner/3.png",
                                                               "c/2.png", "c/inner/3.png"}));
}

TEST(DirectoryIndex, RefusesWhatAClassifierCannotLearnFrom) {
  TempDir dir;
  const auto refuse = [&] {
    return testing::data_error([&] {
      require_files_in_every_class(index_directory(dir.str(), kImageExtensions, false), dir.str(), "images",
                                   kImageExtensions);
    });
  };
  EXPECT_NE(refuse().find("no class folders"), std::string::npos) << refuse();
  fs::create_directories(dir.path() / "only");
  write_file(dir.path() / "only/1.png", "x");
  EXPECT_NE(refuse().find("only one class folder ('only')"), std::string::npos) << refuse();
  fs::create_directories(dir.path() / "empty");
  write_file(dir.path() / "empty/readme.txt", "x");
  EXPECT_NE(refuse().find("the class folder 'empty' holds no images"), std::string::npos) << refuse();
  write_file(dir.path() / "empty/1.gif", "x");
  EXPECT_EQ(refuse(), "");
  EXPECT_NE(testing::data_error([&] { index_directory(dir / "missing", kImageExtensions, false); }).find("no such folder"),
            std::string::npos);
}

// numpy 1.24: a = list(range(10)); np.random.RandomState(seed).shuffle(a)
TEST(KerasSplit, ShufflesAsNumpyAndHoldsOutTheLastShare) {
  const KerasSplit s = keras_split(10, 42, 0.2);
  EXPECT_EQ(s.train, (std::vector<int64_t>{8, 1, 5, 0, 7, 2, 9, 4}));
  EXPECT_EQ(s.validation, (std::vector<int64_t>{3, 6}));
  const KerasSplit t = keras_split(10, 1337, 0.35);  // int(0.35 * 10) = 3
  EXPECT_EQ(t.train, (std::vector<int64_t>{6, 3, 0, 4, 5, 2, 1}));
  EXPECT_EQ(t.validation, (std::vector<int64_t>{9, 8, 7}));
  EXPECT_EQ(keras_split(10, 42, 0).train.size(), 10u);
  EXPECT_TRUE(keras_split(10, 42, 0).validation.empty());
}

TEST(KerasSplit, RefusesSplitsKerasCannotMake) {
  EXPECT_NE(testing::data_error([] { keras_split(4, 42, 0.2); }).find("holds out none"), std::string::npos);
  EXPECT_NE(testing::error_of<ConfigError>([] { keras_split(10, uint64_t{1} << 32, 0.2); }).find("2**32"),
            std::string::npos);
  EXPECT_NE(testing::error_of<ConfigError>([] { keras_split(10, 42, 1.0); }).find("[0, 1)"), std::string::npos);
}

TEST(KerasSplit, SameFilesAsKerasRuleInPython) {
  if (!testing::python_has("numpy")) GTEST_SKIP() << "no python3 with numpy here";
  const std::string script = testing::read_file(fs::path(mirror::testing::source_dir()) / "tests/tools/keras_directory_split.py");
  ASSERT_FALSE(script.empty());
  TempDir dir;
  const fs::path data = dir.path() / "data";
  make_tricky_tree(data);
  for (int i = 0; i < 40; ++i) write_file(data / "cat/sub" / ("n" + std::to_string(i * 7 % 13) + "_" + std::to_string(i) + ".png"), "x");
  fs::create_directories(dir.path() / "more");
  write_file(dir.path() / "more/m.png", "x");
  fs::create_directory_symlink(dir.path() / "more", data / "Dog/linked");
  std::string extensions;
  for (const auto& e : kImageExtensions) extensions += (extensions.empty() ? "" : ",") + e;
  for (const bool follow : {false, true}) {
    const DirectoryIndex index = index_directory(data.string(), kImageExtensions, follow);
    for (const uint64_t seed : {uint64_t{0}, uint64_t{42}, uint64_t{1337}, uint64_t{4294967295}}) {
      for (const double share : {0.2, 0.5, 0.33, 0.0}) {
        std::ostringstream arg;
        arg << seed << " " << share << " " << (follow ? 1 : 0) << " " << extensions << " " << data.string();
        const auto out = testing::run_python(dir.path(), script, arg.str());
        ASSERT_TRUE(out.has_value()) << arg.str();
        std::string want;
        for (const auto& c : index.class_names) want += "class " + c + "\n";
        const KerasSplit split = keras_split(static_cast<int64_t>(index.files.size()), seed, share);
        for (int64_t i : split.train) want += "train " + index.files[i] + " " + std::to_string(index.labels[i]) + "\n";
        for (int64_t i : split.validation)
          want += "validation " + index.files[i] + " " + std::to_string(index.labels[i]) + "\n";
        EXPECT_EQ(*out, want) << "seed " << seed << ", validation_split " << share << ", follow_links " << follow;
      }
    }
  }
}

TEST(ContentHash, DependsOnNamesAndBytesNotOnWhereTheFolderIs) {
  TempDir one, two;
  for (const TempDir* d : {&one, &two}) {
    fs::create_directories(d->path() / "a");
    write_file(d->path() / "a/1.png", "first");
    write_file(d->path() / "a/2.png", "second");
  }
  const auto hash = [](const TempDir& d) {
    return content_hash_of_files({d / "a/1.png", d / "a/2.png"}, d.str(), uint64_t{1} << 20);
  };
#ifdef MIRROR_WITH_DOWNLOADS
  EXPECT_EQ(hash(one).size(), 64u);
  EXPECT_EQ(hash(one), hash(two));
  write_file(two.path() / "a/2.png", "Second");
  EXPECT_NE(hash(one), hash(two));
  ContentHash incremental;
  incremental.add_file("a/1.png", "first", 5);
  incremental.add_file("a/2.png", "second", 6);
  EXPECT_EQ(incremental.hex(), hash(one));
#else
  EXPECT_EQ(hash(one), "");
#endif
}

TEST(LoadProgress, ReachesTheSinkOfThisThreadOnly) {
  std::vector<int64_t> seen;
  {
    ScopedLoadProgress outer([&](const LoadProgress& p) { seen.push_back(-p.done); });
    {
      ScopedLoadProgress inner([&](const LoadProgress& p) { seen.push_back(p.done); });
      report_load_progress(3, 10, "reading");
    }
    report_load_progress(4, 10, "reading");
  }
  report_load_progress(5, 10, "nobody listens");
  EXPECT_EQ(seen, (std::vector<int64_t>{3, -4}));
}

}  // namespace
}  // namespace mirror
