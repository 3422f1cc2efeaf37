// Datasets by name: what load_dataset accepts and refuses, and gathering from a split.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/data/registry.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"

using namespace mirror;

TEST(Datasets, BadNamesAndOptionsAreConfigErrors) {
  DatasetOptions o;
  o.name = "imagenet";
  EXPECT_THROW(load_dataset(o), ConfigError);
  PointSetOptions p;
  p.classes = 1;
  EXPECT_THROW(make_point_set(p), ConfigError);
  p = {};
  p.noise = -3;
  EXPECT_THROW(make_point_set(p), ConfigError);
  SyntheticTextOptions t;
  t.train_size = 0;
  EXPECT_THROW(make_synthetic_text(t), ConfigError);
}

TEST(Datasets, GatherRejectsIndicesOutsideTheSplit) {
  const auto d = make_point_set({});
  EXPECT_THROW(d->gather(Split::kValidation, {0, 500}), std::out_of_range);
}
