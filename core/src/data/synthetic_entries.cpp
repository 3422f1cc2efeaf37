// The registry's entries for the generated datasets: always here, the same bytes for a seed.
#include "mirror/data/dataset_registry.h"
#include "mirror/data/synthetic.h"

namespace mirror {

namespace {
// The options every generated set reads.
constexpr UsedDatasetOptions kGenerated{.seed = true, .train_size = true, .val_size = true};

// A 2-D point set of make_point_set's `kind`; `classes`: whether it takes a class count.
DatasetEntry point_set_entry(const char* kind, const char* summary, bool classes) {
  UsedDatasetOptions uses = kGenerated;
  uses.classes = classes;
  uses.noise = true;
  return {
      .name = kind,
      .summary = summary,
      .uses = uses,
      .load =
          [](const DatasetOptions& o) {
            PointSetOptions p;
            p.kind = o.name;
            p.seed = o.seed;
            if (o.train_size > 0) p.train_size = o.train_size;
            if (o.val_size > 0) p.val_size = o.val_size;
            if (o.classes > 0) p.classes = o.classes;
            if (o.noise >= 0) p.noise = o.noise;
            return make_point_set(p);
          },
  };
}
}  // namespace

DatasetEntry synthetic_text_entry() {
  UsedDatasetOptions uses = kGenerated;
  uses.classes = true;
  return {
      .name = "synthetic-text",
      .summary = "Reuters-shaped token sequences: length 300, 30,982 words, 46 topics",
      .uses = uses,
      .load =
          [](const DatasetOptions& o) {
            SyntheticTextOptions t;
            t.seed = o.seed;
            if (o.train_size > 0) t.train_size = o.train_size;
            if (o.val_size > 0) t.val_size = o.val_size;
            if (o.classes > 0) t.classes = o.classes;
            return make_synthetic_text(t);
          },
  };
}

DatasetEntry spirals_entry() { return point_set_entry("spirals", "2-D interleaved spiral arms (3 classes by default)", true); }
DatasetEntry blobs_entry() { return point_set_entry("blobs", "2-D Gaussian clusters (3 classes by default)", true); }
DatasetEntry xor_entry() { return point_set_entry("xor", "2-D XOR quadrants, 2 classes", false); }
DatasetEntry circles_entry() { return point_set_entry("circles", "2-D disc inside a ring, 2 classes", false); }

}  // namespace mirror
