#include "mirror/runs/evaluations.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "mirror/util/error.h"
#include "mirror/util/json_fields.h"
#include "mirror/util/json_file.h"

namespace mirror {

namespace {
// Confidence is kept to three decimals: a heat map needs no more, and the file stays small.
double rounded(float p) { return std::round(static_cast<double>(p) * 1000.0) / 1000.0; }

[[noreturn]] void damaged(const std::string& what) { throw DataError(fmt::format("not a valid evaluation: {}", what)); }

const nlohmann::json& field(const nlohmann::json& j, const char* key, bool (nlohmann::json::*is)() const noexcept,
                            const char* kind) {
  const nlohmann::json* v = json_field(j, key);
  if (!v || !((*v).*is)()) damaged(fmt::format("'{}' is {}, not {}", key, v ? v->type_name() : "missing", kind));
  return *v;
}

int64_t whole(const nlohmann::json& v, const char* key, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) damaged(fmt::format("'{}' holds {}, not a whole number", key, v.type_name()));
  const int64_t n = v.get<int64_t>();
  if (n < lo || n > hi) damaged(fmt::format("'{}' holds {}, outside [{}, {}]", key, n, lo, hi));
  return n;
}

double share(const nlohmann::json& v, const char* key) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0 || v.get<double>() > 1)
    damaged(fmt::format("'{}' holds {}, not a probability", key, v.dump()));
  return v.get<double>();
}
}  // namespace

nlohmann::json to_json(const Evaluation& e) {
  nlohmann::json rows = nlohmann::json::array();
  for (int64_t t = 0; t < e.classes; ++t) {
    nlohmann::json row = nlohmann::json::array();
    for (int64_t p = 0; p < e.classes; ++p) row.push_back(e.count(t, p));
    rows.push_back(std::move(row));
  }
  nlohmann::json examples = nlohmann::json::array();
  for (const auto& x : e.examples) {
    nlohmann::json probs = nlohmann::json::array();
    for (const float p : x.probabilities) probs.push_back(rounded(p));
    examples.push_back({{"index", x.index}, {"label", x.label}, {"classes", x.classes}, {"probabilities", probs}});
  }
  nlohmann::json j = {{"type", "evaluation"}, {"epoch", e.epoch},     {"global_step", e.global_step},
                      {"classes", e.classes}, {"confusion", rows},    {"examples", examples}};
  if (!e.regions.empty()) {
    const auto& r = e.regions;
    nlohmann::json confidence = nlohmann::json::array();
    for (const float p : r.confidence) confidence.push_back(rounded(p));
    j["regions"] = {{"columns", r.columns}, {"rows", r.rows},         {"x_min", r.x_min},
                    {"x_max", r.x_max},     {"y_min", r.y_min},       {"y_max", r.y_max},
                    {"classes", r.classes}, {"confidence", confidence}};
  }
  return j;
}

Evaluation evaluation_from_json(const nlohmann::json& j) {
  if (!j.is_object()) damaged(fmt::format("a line holds {}, not an object", j.type_name()));
  Evaluation e;
  e.epoch = static_cast<int>(whole(field(j, "epoch", &nlohmann::json::is_number, "a number"), "epoch", 1, 1 << 30));
  e.global_step = whole(field(j, "global_step", &nlohmann::json::is_number, "a number"), "global_step", 0, INT64_MAX);
  e.classes = whole(field(j, "classes", &nlohmann::json::is_number, "a number"), "classes", 1, kMaxEvaluationClasses);
  const auto& rows = field(j, "confusion", &nlohmann::json::is_array, "an array");
  if (static_cast<int64_t>(rows.size()) != e.classes)
    damaged(fmt::format("'confusion' has {} rows for {} classes", rows.size(), e.classes));
  e.confusion.reserve(static_cast<size_t>(e.classes * e.classes));
  for (const auto& row : rows) {
    if (!row.is_array() || static_cast<int64_t>(row.size()) != e.classes)
      damaged(fmt::format("a row of 'confusion' is not {} counts", e.classes));
    for (const auto& c : row) e.confusion.push_back(whole(c, "confusion", 0, INT64_MAX / (e.classes * e.classes)));
  }
  for (const auto& x : field(j, "examples", &nlohmann::json::is_array, "an array")) {
    ExamplePrediction p;
    p.index = whole(field(x, "index", &nlohmann::json::is_number, "a number"), "index", 0, INT64_MAX);
    p.label = whole(field(x, "label", &nlohmann::json::is_number, "a number"), "label", 0, e.classes - 1);
    const auto& classes = field(x, "classes", &nlohmann::json::is_array, "an array");
    const auto& probs = field(x, "probabilities", &nlohmann::json::is_array, "an array");
    if (classes.empty() || classes.size() != probs.size())
      damaged(fmt::format("example {} has {} classes and {} probabilities", p.index, classes.size(), probs.size()));
    for (const auto& c : classes) p.classes.push_back(whole(c, "classes", 0, e.classes - 1));
    for (const auto& v : probs) p.probabilities.push_back(static_cast<float>(share(v, "probabilities")));
    e.examples.push_back(std::move(p));
  }
  if (const nlohmann::json* r = json_field(j, "regions")) {
    auto& d = e.regions;
    d.columns = static_cast<int>(whole(field(*r, "columns", &nlohmann::json::is_number, "a number"), "columns", 1, 4096));
    d.rows = static_cast<int>(whole(field(*r, "rows", &nlohmann::json::is_number, "a number"), "rows", 1, 4096));
    double* bounds[] = {&d.x_min, &d.x_max, &d.y_min, &d.y_max};
    const char* names[] = {"x_min", "x_max", "y_min", "y_max"};
    for (int i = 0; i < 4; ++i) {
      const auto& v = field(*r, names[i], &nlohmann::json::is_number, "a number");
      if (!std::isfinite(v.get<double>())) damaged(fmt::format("'{}' is not finite", names[i]));
      *bounds[i] = v.get<double>();
    }
    if (!(d.x_min < d.x_max && d.y_min < d.y_max)) damaged("the regions' plane is empty");
    const auto& classes = field(*r, "classes", &nlohmann::json::is_array, "an array");
    const auto& confidence = field(*r, "confidence", &nlohmann::json::is_array, "an array");
    const auto cells = static_cast<size_t>(d.columns) * static_cast<size_t>(d.rows);
    if (classes.size() != cells || confidence.size() != cells)
      damaged(fmt::format("the regions hold {} classes and {} confidences for {} cells", classes.size(),
                          confidence.size(), cells));
    for (const auto& c : classes) d.classes.push_back(static_cast<int32_t>(whole(c, "regions.classes", 0, e.classes - 1)));
    for (const auto& v : confidence) d.confidence.push_back(static_cast<float>(share(v, "regions.confidence")));
  }
  return e;
}

std::vector<Evaluation> read_evaluations(const std::string& dir, std::vector<std::string>* warnings) {
  const std::string path = (std::filesystem::path(dir) / kEvaluationsFile).string();
  std::map<int, Evaluation> by_epoch;
  const auto skipped = [&](int64_t line, const std::string& why) {
    if (warnings && line == 0) warnings->push_back(fmt::format("{} skipped: {}", path, why));
    else if (warnings) warnings->push_back(fmt::format("{} line {} skipped: {}", path, line, why));
  };
  for_each_json_line(path, kEvaluationLineJson, [&](int64_t line, const nlohmann::json& j) {
    if (json_string(j, "type") == "resumed") {
      // What was recorded after the checkpoint the run resumed from is redone: drop it.
      const int64_t from = json_int(j, "global_step", INT64_MAX);
      for (auto it = by_epoch.begin(); it != by_epoch.end();)
        it = it->second.global_step > from ? by_epoch.erase(it) : std::next(it);
      return;
    }
    try {
      Evaluation e = evaluation_from_json(j);
      by_epoch[e.epoch] = std::move(e);
    } catch (const std::exception& e) {
      skipped(line, e.what());
    }
  }, skipped);
  std::vector<Evaluation> out;
  for (auto& [epoch, e] : by_epoch) out.push_back(std::move(e));
  return out;
}

}  // namespace mirror
