#include "mirror/util/memory.h"

#include <dlfcn.h>

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

const char* malloc_name() {
  // tcmalloc exports its entry points under their own names too; glibc's malloc does not.
  if (dlsym(RTLD_DEFAULT, "tc_malloc") != nullptr) return "tcmalloc";
#if defined(__GLIBC__)
  return "glibc";
#else
  return "other";
#endif
}

}  // namespace mirror
