#pragma once
// JSON forms of run events, shared by `mirrortrain --json` and metrics.jsonl. Doubles are written
// at full precision (shortest round-trip form).

#include <nlohmann/json_fwd.hpp>

#include "mirror/train/events.h"

namespace mirror {

nlohmann::json to_json(const RunStarted& e);    // {"type": "started", ...}
nlohmann::json to_json(const StepMetrics& e);   // {"type": "step", ...}
nlohmann::json to_json(const EpochMetrics& e);  // {"type": "epoch", ...}
nlohmann::json to_json(const RunFinished& e);   // {"type": "final", ...}
// A step's timeline, compact (the form of timeline.jsonl and of --json step events' "timeline"),
// and back; throws ConfigError naming the field when `j` is not one.
nlohmann::json to_json(const StepTimeline& t);
StepTimeline timeline_from_json(const nlohmann::json& j);
// `t` at the precision to_json writes (every moment to the microsecond): what a reader of the
// recorded run gets back, so that a trace made live and one made from the record agree.
StepTimeline as_recorded(StepTimeline t);

}  // namespace mirror
