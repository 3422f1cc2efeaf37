#include "mirror/train/events.h"

namespace mirror {

const char* run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kFinished: return "finished";
    case RunStatus::kStopped: return "stopped";
    case RunStatus::kFailed: return "failed";
  }
  return "?";
}

}  // namespace mirror
