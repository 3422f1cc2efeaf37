#pragma once
// How many CPU threads each replica may use, so that N replica threads never ask for more
// intra-op threads than the machine has cores.

namespace mirror {

// Cores usable by this process (affinity mask aware). Thread-safe.
int usable_cores();

// Intra-op threads for each of `replicas` replica threads on `cores` cores: max(1, cores / replicas).
// `requested` > 0 overrides the computation. Pure function.
int intra_op_threads_per_replica(int replicas, int cores, int requested = 0);

// Applies a per-thread intra-op budget to the calling thread: LibTorch's OpenMP team size for
// this thread and, where the BLAS is OpenBLAS, its (process-wide) thread count. Every replica of
// one run applies the same budget, so the process-wide part agrees across them.
void apply_thread_budget(int threads);

// Describes LibTorch's parallel backend and BLAS ("OpenMP, 2 threads; BLAS: OpenBLAS ...").
const char* blas_vendor();

}  // namespace mirror
