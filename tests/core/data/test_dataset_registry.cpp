// The dataset registry: every dataset once, in the order `mirrortrain datasets` has always listed
// them; whether a dataset's files are here and why not; the stand-in trained when they are not;
// and which options each dataset reads.
#include "mirror/data/batch.h"
#include "mirror/data/dataset_registry.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdlib>
#include <optional>

#include "test_helpers.h"
#include "mirror/data/dataset.h"

using namespace mirror;
using mirror::testing::TempDir;
using mirror::testing::write_file;

namespace dataset_registry_test {

// Sets (or unsets, with nullopt) an environment variable for the scope.
class EnvFor {
 public:
  EnvFor(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~EnvFor() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Keras' cache is `home`/.keras/datasets, or $KERAS_HOME/datasets when `keras_home` is given;
// no download origin.
struct FakeHome {
  explicit FakeHome(std::optional<std::string> keras_home = std::nullopt)
      : home("HOME", dir.str()), keras("KERAS_HOME", keras_home), origin("MIRROR_KERAS_ORIGIN", std::nullopt) {}
  TempDir dir;
  EnvFor home, keras, origin;
};

DatasetOptions named(const std::string& name) {
  DatasetOptions o;
  o.name = name;
  return o;
}

std::string why_missing(const DatasetOptions& o) {
  std::string why;
  EXPECT_FALSE(dataset_present(o, &why)) << o.name;
  return why;
}

}  // namespace dataset_registry_test

using namespace dataset_registry_test;

TEST(DatasetRegistry, ListsTheDatasetsMirrortrainListedInTheSameOrder) {
  std::vector<std::string> names;
  for (const auto& e : dataset_entries()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fashion-mnist", "mnist", "reuters", "imdb", "synthetic-text", "spirals",
                                             "blobs", "xor", "circles", "images", "texts", "table"}));
  for (const auto& e : dataset_entries()) {
    EXPECT_EQ(find_dataset(e.name), &e);
    EXPECT_FALSE(e.summary.empty()) << e.name;
    // A dataset read from files says where they are, or (your own data) has no default place and
    // is missing until a data_dir is given.
    if (e.default_dir.empty() && e.missing) EXPECT_FALSE(dataset_present(named(e.name))) << e.name;
    else EXPECT_EQ(e.default_dir.empty(), !e.missing) << e.name << ": a dataset read from files says where they are";
  }
  EXPECT_EQ(find_dataset("imagenet"), nullptr);
}

TEST(DatasetRegistry, KerasFileIsLookedForInKerasHomeAndSaysWhereWhenAbsent) {
  TempDir keras_home;
  FakeHome home(keras_home.str());
  const std::string why = why_missing(named("reuters"));
  EXPECT_NE(why.find("reuters.npz is not in " + keras_home.str() + "/datasets"), std::string::npos) << why;

  // The loader reads $KERAS_HOME/datasets only, so a file under ~/.keras does not count then.
  std::filesystem::create_directories(home.dir.path() / ".keras" / "datasets");
  write_file(home.dir.path() / ".keras" / "datasets" / "reuters.npz", "");
  EXPECT_FALSE(dataset_present(named("reuters")));

  std::filesystem::create_directories(keras_home.path() / "datasets");
  write_file(keras_home.path() / "datasets" / "reuters.npz", "");
  EXPECT_TRUE(dataset_present(named("reuters")));
  EXPECT_FALSE(dataset_present(named("imdb")));
}

TEST(DatasetRegistry, WithoutKerasHomeTheCacheIsUnderHome) {
  FakeHome home;
  const std::string why = why_missing(named("imdb"));
  EXPECT_NE(why.find("imdb.npz is not in " + home.dir.str() + "/.keras/datasets"), std::string::npos) << why;
  std::filesystem::create_directories(home.dir.path() / ".keras" / "datasets");
  write_file(home.dir.path() / ".keras" / "datasets" / "imdb.npz", "");
  EXPECT_TRUE(dataset_present(named("imdb")));
}

TEST(DatasetRegistry, ADataFolderCountsForItsDataset) {
  FakeHome home;
  TempDir data;
  DatasetOptions reuters = named("reuters");
  reuters.data_dir = data.str();
  EXPECT_NE(why_missing(reuters).find(data.str() + " or " + home.dir.str()), std::string::npos);
  write_file(data.path() / "reut2-000.sgm", "");  // the raw Reuters-21578 files
  EXPECT_TRUE(dataset_present(reuters));

  DatasetOptions digits = named("mnist");
  digits.data_dir = data.str();
  EXPECT_EQ(why_missing(digits), data.str() + " has no train-images-idx3-ubyte(.gz)");
  write_file(data.path() / "train-images-idx3-ubyte", "");  // uncompressed counts as well as .gz
  EXPECT_TRUE(dataset_present(digits));
}

TEST(DatasetRegistry, GeneratedSetsAreAlwaysHereAndUnknownNamesNever) {
  FakeHome home;
  for (const auto& e : dataset_entries()) {
    if (!e.missing) {
      EXPECT_TRUE(dataset_present(named(e.name))) << e.name;
    }
  }
  const std::string why = why_missing(named("imagenet"));
  EXPECT_NE(why.find("imagenet"), std::string::npos) << why;
  EXPECT_NE(why.find("synthetic-text"), std::string::npos) << why << ": the known names are listed";
}

TEST(DatasetRegistry, MissingReutersFallsBackToSyntheticTextAsLessonsAndTheWindowDid) {
  FakeHome home;
  DatasetOptions wanted = named("reuters");
  wanted.data_dir = home.dir.str();  // no reuters.npz there
  wanted.num_words = 10000;
  const DatasetChoice choice = resolve_dataset(wanted);
  EXPECT_EQ(choice.options.name, "synthetic-text");
  EXPECT_EQ(choice.options.data_dir, "") << "the folder was the missing dataset's";
  EXPECT_EQ(choice.options.num_words, 10000);
  EXPECT_NE(choice.note.find("reuters is not on this machine (reuters.npz is not in"), std::string::npos) << choice.note;
  EXPECT_NE(choice.note.find("synthetic-text"), std::string::npos) << choice.note;

  write_file(home.dir.path() / "reuters.npz", "");
  const DatasetChoice here = resolve_dataset(wanted);
  EXPECT_EQ(here.options.name, "reuters");
  EXPECT_EQ(here.options.data_dir, home.dir.str());
  EXPECT_EQ(here.note, "");
}

TEST(DatasetRegistry, WithoutAStandInTheWantedDatasetIsKept) {
  FakeHome home;
  TempDir empty;
  for (const std::string name : {"fashion-mnist", "mnist", "imdb"}) {
    DatasetOptions wanted = named(name);
    wanted.data_dir = empty.str();
    ASSERT_FALSE(dataset_present(wanted)) << name;
    const DatasetChoice choice = resolve_dataset(wanted);
    EXPECT_EQ(choice.options.name, name);
    EXPECT_EQ(choice.options.data_dir, empty.str());
    EXPECT_EQ(choice.note, "");
  }
  EXPECT_EQ(resolve_dataset(named("spirals")).options.name, "spirals");
  EXPECT_EQ(resolve_dataset(named("imagenet")).options.name, "imagenet") << "loading names the problem";
  for (const auto& e : dataset_entries()) {
    if (!e.stand_in.empty()) {
      EXPECT_TRUE(dataset_present(named(e.stand_in))) << e.name << "'s stand-in";
    }
  }
}

TEST(DatasetRegistry, LoadingNamesTheKnownDatasetsForAnUnknownName) {
  const std::string why = mirror::testing::error_of<ConfigError>([] { load_dataset(named("imagenet")); });
  EXPECT_NE(why.find("unknown dataset 'imagenet' (known: fashion-mnist, mnist, reuters"), std::string::npos) << why;
}

// For every generated set: an option it is said to read changes the data it gives, and one it is
// said to ignore does not. (File datasets need their files; their options are Keras' own.)
TEST(DatasetRegistry, GeneratedSetsReadExactlyTheOptionsTheyList) {
  struct Knob {
    const char* name;
    bool UsedDatasetOptions::*used;
    void (*change)(DatasetOptions&);
  };
  const Knob knobs[] = {
      {"seed", &UsedDatasetOptions::seed, [](DatasetOptions& o) { o.seed = 7; }},
      {"train_size", &UsedDatasetOptions::train_size, [](DatasetOptions& o) { o.train_size = 50; }},
      {"val_size", &UsedDatasetOptions::val_size, [](DatasetOptions& o) { o.val_size = 20; }},
      {"classes", &UsedDatasetOptions::classes, [](DatasetOptions& o) { o.classes = 4; }},
      {"noise", &UsedDatasetOptions::noise, [](DatasetOptions& o) { o.noise = 0.5; }},
      {"num_words", &UsedDatasetOptions::num_words, [](DatasetOptions& o) { o.num_words = 100; }},
      {"sequence_length", &UsedDatasetOptions::sequence_length, [](DatasetOptions& o) { o.sequence_length = 20; }},
      {"data_dir", &UsedDatasetOptions::data_dir, [](DatasetOptions& o) { o.data_dir = "/nonexistent"; }},
  };
  auto same = [](const Dataset& a, const Dataset& b) {
    for (Split s : {Split::kTrain, Split::kValidation}) {
      const Batch x = a.slice(s, 0, a.size(s)), y = b.slice(s, 0, b.size(s));
      if (!x.x.sizes().equals(y.x.sizes()) || !torch::equal(x.x, y.x) || !torch::equal(x.y, y.y)) return false;
    }
    return true;
  };
  for (const auto& e : dataset_entries()) {
    if (e.missing) continue;
    DatasetOptions base = named(e.name);
    base.train_size = 40;  // small and quick
    base.val_size = 10;
    const auto reference = e.load(base);
    for (const Knob& k : knobs) {
      DatasetOptions changed = base;
      k.change(changed);
      EXPECT_EQ(!same(*reference, *e.load(changed)), e.uses.*k.used) << e.name << " and " << k.name;
    }
  }
}

TEST(DatasetRegistry, ReutersAloneReadsTheValidationShareAndTheSgmlThreshold) {
  for (const auto& e : dataset_entries()) {
    EXPECT_EQ(e.uses.test_split, e.name == "reuters") << e.name;
    EXPECT_EQ(e.uses.min_wires_per_topic, e.name == "reuters") << e.name;
    const bool keras = e.name == "reuters" || e.name == "imdb";
    EXPECT_EQ(e.uses.num_words && e.uses.skip_top && e.uses.maxlen && e.uses.sequence_length, keras) << e.name;
  }
}
