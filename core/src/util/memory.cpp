#include "mirror/util/memory.h"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mirror {

void keep_freed_memory_for_reuse() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__)
    // Blocks below 32 MiB (glibc's largest mmap threshold) come from the heap and are reused;
    // the heap is trimmed only when 1 GiB lies free at its top.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  });
}

}  // namespace mirror
