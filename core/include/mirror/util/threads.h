#pragma once
// How many CPU threads each replica may use, so that N replica threads never ask for more
// intra-op threads than the machine has cores.

#include <cstdint>
#include <string>

namespace mirror {

// Cores usable by this process (affinity mask aware). Thread-safe.
int usable_cores();

// A replica's intra-op threads pay for themselves only with enough of its shard to split: with
// fewer examples a thread than this, OpenMP's hand-offs cost more than they save. Measured on the
// tutorial's model with the CPU kernels (2026-12-03, 2-core machine, medians of 3): one replica
// trained 8,183 samples/s on 1 thread and 7,715 on 2 at batch 128, 8,412 and 8,810 at 192, 8,282
// and 9,615 at 256. (Before the kernels, on LibTorch's layers, the crossover was near 64.)
inline constexpr int64_t kExamplesPerIntraOpThread = 128;

// The most intra-op threads a replica is given for each core, whatever is requested: beyond that
// they only wait for each other (1,024 threads on 2 cores took 43 s a step).
inline constexpr int kMaxIntraOpThreadsPerCore = 2;

// Intra-op threads for each of `replicas` replica threads on `cores` cores: `requested` when > 0
// (at most kMaxIntraOpThreadsPerCore x cores, `why` then saying it was capped);
// otherwise cores / replicas (at least 1), and, when `shard_examples` (the examples of a replica's
// shard in a training step) is known (> 0), no more than one thread per kExamplesPerIntraOpThread
// of them. `why`, when given, receives which rule decided, in words. Pure function.
int intra_op_threads_per_replica(int replicas, int cores, int requested = 0, int64_t shard_examples = 0,
                                 std::string* why = nullptr);

// Applies a per-thread intra-op budget to the calling thread: LibTorch's OpenMP team size for
// this thread and, where the BLAS is OpenBLAS, its (process-wide) thread count. Every replica of
// one run applies the same budget, so the process-wide part agrees across them.
void apply_thread_budget(int threads);

// Describes LibTorch's parallel backend and BLAS ("OpenMP, 2 threads; BLAS: OpenBLAS ...").
const char* blas_vendor();

}  // namespace mirror
