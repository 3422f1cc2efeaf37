#pragma once
// How far a dataset loader has got, for whoever called load_dataset: the command line prints it
// on stderr, the window shows a bar. A loader that reads many files (images, texts) reports as it
// goes; the others report nothing. Light: no torch.
//
//   ScopedLoadProgress progress([](const LoadProgress& p) { print(p.done, p.total, p.what); });
//   auto dataset = load_dataset(options);   // calls the sink on this thread while it reads

#include <cstdint>
#include <functional>
#include <string>

namespace mirror {

struct LoadProgress {
  int64_t done = 0;   // files read so far
  int64_t total = 0;  // files to read (0: not known yet)
  std::string what;   // what is being read, in words: "reading images from /data/pets"
};

using LoadProgressSink = std::function<void(const LoadProgress&)>;

// Installs `sink` for the calling thread for this object's lifetime; the previous sink (if any)
// comes back when it is destroyed (scopes nest). The sink is called on the thread that installed
// it, from inside the loader; an exception it throws (say, to cancel) propagates out of the loader.
// Not copyable; destroy it on the thread that made it.
class ScopedLoadProgress {
 public:
  explicit ScopedLoadProgress(LoadProgressSink sink);
  ~ScopedLoadProgress();
  ScopedLoadProgress(const ScopedLoadProgress&) = delete;
  ScopedLoadProgress& operator=(const ScopedLoadProgress&) = delete;

 private:
  LoadProgressSink previous_;
};

// Loaders call this: passes the progress to the calling thread's sink; does nothing without one.
// Call it from the thread that called load_dataset (not from helper threads).
void report_load_progress(int64_t done, int64_t total, const std::string& what);

}  // namespace mirror
