#include "mirror/data/load_progress.h"

#include <utility>

namespace mirror {

namespace {
// The calling thread's sink: each thread that loads a dataset has its own.
LoadProgressSink& current_sink() {
  thread_local LoadProgressSink sink;
  return sink;
}
}  // namespace

ScopedLoadProgress::ScopedLoadProgress(LoadProgressSink sink) : previous_(std::move(current_sink())) {
  current_sink() = std::move(sink);
}

ScopedLoadProgress::~ScopedLoadProgress() { current_sink() = std::move(previous_); }

void report_load_progress(int64_t done, int64_t total, const std::string& what) {
  const LoadProgressSink& sink = current_sink();
  if (sink) sink(LoadProgress{done, total, what});
}

}  // namespace mirror
