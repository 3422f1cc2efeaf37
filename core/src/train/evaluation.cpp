#include "mirror/train/evaluation.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace mirror {

int64_t Evaluation::count(int64_t label, int64_t predicted) const {
  if (label < 0 || predicted < 0 || label >= classes || predicted >= classes) return 0;
  const auto at = static_cast<size_t>(label * classes + predicted);
  return at < confusion.size() ? confusion[at] : 0;
}

int64_t Evaluation::total() const {
  int64_t n = 0;
  for (const int64_t c : confusion) n += c;
  return n;
}

int64_t Evaluation::correct() const {
  int64_t n = 0;
  for (int64_t c = 0; c < classes; ++c) n += count(c, c);
  return n;
}

int64_t Evaluation::label_total(int64_t label) const {
  int64_t n = 0;
  for (int64_t p = 0; p < classes; ++p) n += count(label, p);
  return n;
}

double Evaluation::class_accuracy(int64_t label) const {
  const int64_t n = label_total(label);
  return n > 0 ? static_cast<double>(count(label, label)) / static_cast<double>(n) : -1.0;
}

std::vector<ConfusedPair> Evaluation::most_confused(size_t n) const {
  std::vector<ConfusedPair> pairs;
  for (int64_t t = 0; t < classes; ++t)
    for (int64_t p = 0; p < classes; ++p)
      if (t != p && count(t, p) > 0) pairs.push_back({t, p, count(t, p)});
  std::stable_sort(pairs.begin(), pairs.end(), [](const ConfusedPair& a, const ConfusedPair& b) { return a.count > b.count; });
  if (pairs.size() > n) pairs.resize(n);
  return pairs;
}

std::vector<const ExamplePrediction*> Evaluation::examples_in(int64_t label, int64_t predicted) const {
  std::vector<const ExamplePrediction*> out;
  for (const auto& e : examples)
    if (e.label == label && e.predicted() == predicted) out.push_back(&e);
  return out;
}

EvaluationBuilder::EvaluationBuilder(int64_t classes) {
  if (classes < 1) throw std::invalid_argument(fmt::format("an evaluation needs at least one class, not {}", classes));
  ev_.classes = classes;
  ev_.confusion.assign(static_cast<size_t>(classes * classes), 0);
  kept_.assign(ev_.confusion.size(), 0);
}

void EvaluationBuilder::add(const int64_t* labels, int64_t n, const TopPredictions& top) {
  if (top.k < 1 || top.examples() != n || top.probabilities.size() != top.classes.size())
    throw std::invalid_argument(fmt::format("an evaluation batch of {} examples came with predictions for {}", n,
                                            top.examples()));
  const auto k = static_cast<size_t>(top.k);
  // Checked whole first, so that a bad batch leaves the evaluation as it was.
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = labels[i];
    for (size_t j = 0; j < k; ++j)
      if (const int64_t c = top.classes[static_cast<size_t>(i) * k + j]; label < 0 || label >= ev_.classes || c < 0 ||
                                                                         c >= ev_.classes)
        throw std::invalid_argument(fmt::format("example {}: class {} predicted as {}, but there are {} classes",
                                                seen_ + i, label, c, ev_.classes));
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t label = labels[i];
    const auto first = static_cast<size_t>(i) * k;
    const int64_t predicted = top.classes[first];
    const auto cell = static_cast<size_t>(label * ev_.classes + predicted);
    ++ev_.confusion[cell];
    if (kept_[cell] >= kExamplesPerCell) continue;
    ++kept_[cell];
    ExamplePrediction e;
    e.index = seen_ + i;
    e.label = label;
    e.classes.assign(top.classes.begin() + static_cast<std::ptrdiff_t>(first),
                     top.classes.begin() + static_cast<std::ptrdiff_t>(first + k));
    e.probabilities.assign(top.probabilities.begin() + static_cast<std::ptrdiff_t>(first),
                           top.probabilities.begin() + static_cast<std::ptrdiff_t>(first + k));
    ev_.examples.push_back(std::move(e));
  }
  seen_ += n;
}

Evaluation EvaluationBuilder::finish(int epoch, int64_t global_step) && {
  ev_.epoch = epoch;
  ev_.global_step = global_step;
  return std::move(ev_);
}

}  // namespace mirror
