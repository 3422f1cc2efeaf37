// libFuzzer target: JSON text, nested or not, through the one JSON entry point (json_file.h) and
// each reader that takes it: a model file, a run's run.json, meta.json and metrics.jsonl, its
// evaluations.jsonl, and the entry point alone with the limits of a config file and a lesson
// (their readers have targets of their own: fuzz_config, fuzz_lesson). The first byte picks the reader, the rest is the text. A refusal (ConfigError,
// DataError) is fine; anything else escaping, a crash (120 KB of '[' was a stack overflow), a
// leak, a hang, or a tree deeper than the limit or than json_nesting_depth said is a bug.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mirror/model/layer_spec.h"
#include "mirror/runs/evaluations.h"
#include "mirror/runs/run_reader.h"
#include "mirror/util/error.h"
#include "mirror/util/json_file.h"
#include "scratch_file.h"

namespace {
// How deep `j` nests, counting arrays and objects as json_nesting_depth does.
int64_t tree_depth(const nlohmann::json& j) {
  if (!j.is_structured()) return 0;
  int64_t deepest = 0;
  for (const auto& v : j) deepest = std::max(deepest, tree_depth(v));
  return deepest + 1;
}

// What crashed on deep trees before the limit: copy, compare, dump; and the depth the pre-scan
// promised. `text` parsed into `j`.
void check_tree(const std::string& text, const nlohmann::json& j, const mirror::JsonLimits& limits) {
  const int64_t depth = tree_depth(j);
  if (depth > limits.max_depth || depth != mirror::json_nesting_depth(text)) __builtin_trap();
  const nlohmann::json copy = j;
  if (copy != j || nlohmann::json::parse(copy.dump()) != j) __builtin_trap();
}

void model_file(const std::string& text) {
  const std::string path = mirror::fuzz::scratch().put("model.json", text);
  try {
    const mirror::ModelSpec spec = mirror::load_model_file(path);
    if (mirror::to_json(mirror::model_from_json(mirror::to_json(spec))) != mirror::to_json(spec)) __builtin_trap();
  } catch (const mirror::ConfigError&) {
  }
}

// A run folder with `text` as `file` and small valid others.
void run_folder(const std::string& file, const std::string& text) {
  const auto& scratch = mirror::fuzz::scratch();
  scratch.put("run.json", file == "run.json" ? text : R"({"status": "finished", "config": {"seed": 1}})");
  if (file == "meta.json") scratch.put("meta.json", text); else scratch.remove("meta.json");
  scratch.put("metrics.jsonl", file == "metrics.jsonl" ? text : R"({"type":"step","global_step":1,"samples":2})" "\n");
  scratch.put(mirror::kEvaluationsFile, file == mirror::kEvaluationsFile ? text : "");
  for (const mirror::Evaluation& e : mirror::read_evaluations(scratch.dir())) {
    if (e.classes > mirror::kMaxEvaluationClasses) __builtin_trap();
    if (e.confusion.size() != static_cast<size_t>(e.classes * e.classes)) __builtin_trap();
  }
  try {
    const mirror::RunRecord r = mirror::read_run(scratch.dir());
    if (file != "run.json" && r.status != "finished") __builtin_trap();  // one bad file spoils nothing else
    const std::vector<mirror::RunRecord> both{r, r};
    (void)mirror::differing_config_keys(both);
  } catch (const mirror::DataError&) {
    if (file != "run.json") __builtin_trap();
  }
}

void entry_point(const std::string& text, const mirror::JsonLimits& limits) {
  try {
    check_tree(text, mirror::parse_json_text(text, "input", limits), limits);
  } catch (const mirror::ConfigError&) {
  } catch (const mirror::DataError&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 7) {
    case 0: model_file(text); break;
    case 1: run_folder("run.json", text); break;
    case 2: run_folder("meta.json", text); break;
    case 3: run_folder("metrics.jsonl", text); break;
    case 4: run_folder(mirror::kEvaluationsFile, text); break;
    case 5: entry_point(text, mirror::kConfigFileJson); break;
    default: entry_point(text, mirror::kLessonJson); break;
  }
  return 0;
}
