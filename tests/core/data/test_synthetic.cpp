// The synthetic sets: the tutorial-shaped text set and the 2-D point sets.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "mirror/data/batch.h"
#include "mirror/data/registry.h"
#include "mirror/data/synthetic.h"
#include "mirror/util/error.h"

using namespace mirror;

TEST(SyntheticText, HasTheTutorialShapesAndIsDeterministic) {
  SyntheticTextOptions o;
  const auto a = make_synthetic_text(o);
  EXPECT_EQ(a->size(Split::kTrain), 8982);
  EXPECT_EQ(a->size(Split::kValidation), 2246);
  EXPECT_EQ(a->info().input_shape, std::vector<int64_t>{300});
  EXPECT_EQ(a->info().num_classes, 46);
  const auto train = a->slice(Split::kTrain, 0, 8982);
  EXPECT_EQ(train.x.max().item<int64_t>() + 1, 30982);  // MAX_WORDS as the tutorial computes it
  EXPECT_EQ(train.x.min().item<int64_t>(), 0);          // padding
  const auto counts = a->class_counts(Split::kTrain);
  EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](int64_t c) { return c > 0; }));
  EXPECT_EQ(std::max_element(counts.begin(), counts.end()) - counts.begin(), 3);  // the "earn" of this set
  // Pre-padding: a short document's zeros come first, its start token right after them.
  const auto row = train.x[1];
  const int64_t zeros = row.eq(0).sum().item<int64_t>();
  if (zeros > 0) {
    EXPECT_EQ(row[zeros].item<int64_t>(), 1);
  }

  const auto b = make_synthetic_text(o);
  EXPECT_TRUE(torch::equal(train.x, b->slice(Split::kTrain, 0, 8982).x));
  o.seed = 7;
  EXPECT_FALSE(torch::equal(train.x, make_synthetic_text(o)->slice(Split::kTrain, 0, 8982).x));
}

TEST(PointSets, EveryKindIsBalancedDeterministicAndTwoDimensional) {
  for (const char* kind : {"spirals", "blobs", "xor", "circles"}) {
    PointSetOptions o;
    o.kind = kind;
    const auto d = make_point_set(o);
    EXPECT_EQ(d->info().input_shape, std::vector<int64_t>{2});
    EXPECT_EQ(d->size(Split::kTrain), 2000);
    const auto counts = d->class_counts(Split::kTrain);
    for (int64_t c : counts) EXPECT_GT(c, 2000 / static_cast<int64_t>(counts.size()) / 2) << kind;
    EXPECT_TRUE(torch::equal(d->slice(Split::kTrain, 0, 10).x, make_point_set(o)->slice(Split::kTrain, 0, 10).x));
  }
}
