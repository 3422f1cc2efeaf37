#pragma once
// What the model learned, as measured at one validation: the confusion matrix, the predictions
// for a few examples of every cell of it, and for 2-D inputs the decision regions. Plain values
// (no torch), safe to copy across threads; recorded with the run (evaluations.jsonl) so that a
// finished run shows them as well as a live one.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mirror/strategy/step_result.h"

namespace mirror {

// Examples kept per cell of the confusion matrix (the first ones of the validation split).
inline constexpr int kExamplesPerCell = 3;
// Decision regions are sampled on a square grid of this many points per side.
inline constexpr int kRegionGrid = 64;
// Evaluations are recorded and read for at most this many classes (ImageNet's 1,000): a confusion
// matrix of more cannot be looked at, and 3,000 classes took 400 MB to read one epoch of (18 MB).
inline constexpr int64_t kMaxEvaluationClasses = 1000;

// One validation example and what the model made of it.
struct ExamplePrediction {
  int64_t index = 0;                 // in the validation split
  int64_t label = 0;                 // the true class
  std::vector<int64_t> classes;      // the k most probable classes, most probable first
  std::vector<float> probabilities;  // theirs, in the same order
  int64_t predicted() const { return classes.empty() ? -1 : classes.front(); }
  bool correct() const { return predicted() == label; }
};

// The class the model gives each point of a grid over the input plane (2-D datasets only).
struct DecisionRegions {
  int columns = 0, rows = 0;
  double x_min = 0, x_max = 0, y_min = 0, y_max = 0;
  // columns * rows, row-major, row 0 at y_min, column 0 at x_min; the point of cell (c, r) is
  // x_min + (c + 0.5) * (x_max - x_min) / columns, likewise for y.
  std::vector<int32_t> classes;
  std::vector<float> confidence;  // the winning class's probability, in [0, 1]
  bool empty() const { return classes.empty(); }
};

// A cell off the diagonal: `count` examples of class `label` predicted as `predicted`.
struct ConfusedPair {
  int64_t label = 0;
  int64_t predicted = 0;
  int64_t count = 0;
};

struct Evaluation {
  int epoch = 0;               // 1-based; the validation at the end of this epoch
  int64_t global_step = 0;     // training steps taken before it
  int64_t classes = 0;
  std::vector<int64_t> confusion;  // classes x classes, row = true class, column = predicted class
  std::vector<ExamplePrediction> examples;  // up to kExamplesPerCell per non-empty cell, by index
  DecisionRegions regions;                  // empty unless the inputs are 2-D points

  int64_t count(int64_t label, int64_t predicted) const;
  int64_t total() const;                   // examples validated
  int64_t correct() const;                 // the diagonal
  int64_t label_total(int64_t label) const;  // examples of class `label` (its row)
  // Of class `label`'s examples, the share predicted right; -1 when it has none.
  double class_accuracy(int64_t label) const;
  // The `n` largest cells off the diagonal, largest first (ties: by label, then prediction).
  std::vector<ConfusedPair> most_confused(size_t n) const;
  // The recorded examples of cell (label, predicted), by index.
  std::vector<const ExamplePrediction*> examples_in(int64_t label, int64_t predicted) const;
};

// Accumulates an Evaluation from the validation batches' predictions, in split order. Not
// thread-safe.
class EvaluationBuilder {
 public:
  explicit EvaluationBuilder(int64_t classes);
  // The next `n` examples of the split: their true classes and the evaluation's top predictions
  // (top.classes holds top.k classes per example). Throws std::invalid_argument when `top` does
  // not hold `n` examples or names a class outside [0, classes).
  void add(const int64_t* labels, int64_t n, const TopPredictions& top);
  int64_t seen() const { return seen_; }
  // The evaluation so far, stamped with its epoch and step.
  Evaluation finish(int epoch, int64_t global_step) &&;

 private:
  Evaluation ev_;
  std::vector<int> kept_;  // examples kept per cell
  int64_t seen_ = 0;
};

}  // namespace mirror
