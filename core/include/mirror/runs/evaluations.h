#pragma once
// A run's evaluations on disk: evaluations.jsonl in the run directory, one JSON object per
// validation (what the model learned: confusion matrix, example predictions, decision regions).

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "mirror/train/evaluation.h"

namespace mirror {

inline constexpr const char* kEvaluationsFile = "evaluations.jsonl";

// {"type": "evaluation", "epoch": ..., "confusion": [[...], ...], ...}
nlohmann::json to_json(const Evaluation& e);
// Reads what to_json wrote. Throws DataError naming the first field that is missing, of the
// wrong type or out of range (a damaged file never yields an inconsistent Evaluation).
Evaluation evaluation_from_json(const nlohmann::json& j);

// The evaluations recorded in run directory `dir`, one per epoch in epoch order (a resumed run's
// redone epochs replace what was recorded after its checkpoint). A run without the file (older
// runs, runs without a validation split) has none. A damaged line is skipped and said in
// `warnings`; nothing throws.
std::vector<Evaluation> read_evaluations(const std::string& dir, std::vector<std::string>* warnings = nullptr);

}  // namespace mirror
