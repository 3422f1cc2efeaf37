#pragma once
// Process-wide memory tuning for training.

namespace mirror {

// Keeps freed tensor memory inside the process instead of handing it back to the kernel after
// every step. With glibc's defaults, large activations are mmap'ed and unmapped each step, or the
// heap is trimmed after each free, and every step then pays thousands of page faults to get the
// memory back (measured: ~12,000 faults per step of seed-reuters at batch 256). Raises glibc's
// mmap and trim thresholds once per process; a no-op on other C libraries. Thread-safe.
void keep_freed_memory_for_reuse();

// The allocator serving malloc in this process: "tcmalloc" when it is linked in or preloaded
// (the programs link it: see MIRROR_TCMALLOC), else "glibc" (or "other"). Recorded in run.json.
const char* malloc_name();

}  // namespace mirror
