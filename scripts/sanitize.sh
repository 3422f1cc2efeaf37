#!/usr/bin/env bash
# Builds the core tests under a sanitizer and runs them; fails on any report.
#   asan: AddressSanitizer + LeakSanitizer, every core test (build-asan/). CI runs this one.
#   asan+ubsan: the same with UndefinedBehaviorSanitizer too (build-asan-ubsan/). Its checks make
#         each unit compile ~40% longer (34 s against 24 s); CI has them where outside bytes are
#         read, in every fuzz target (scripts/fuzz.sh), and leaves them out here to fit its hour.
#   tsan: ThreadSanitizer (build-tsan/), on the core tests whose code runs threads: replicas
#         and their barriers, the communicators and workers, the trainer, a recorded run's writer
#         and follower, the run lock, the trace (tests/core/strategy, train, util and those of
#         runs/ and data/ named in tsan_tests below). Only those are built: a sanitizer build of
#         all of them cost CI about 4 minutes more for tests that start no thread.
# Only our code is instrumented; LibTorch is Debian's uninstrumented build, so TSan sees our own
# synchronisation, not LibTorch's: the TSan tests run on one core (one intra-op thread per replica,
# no OpenMP pool) and tests/tsan.supp documents the one thing suppressed (nothing of ours).
# Usage: scripts/sanitize.sh asan|asan+ubsan|tsan [GTEST_FILTER]
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: scripts/sanitize.sh asan|asan+ubsan|tsan [GTEST_FILTER]}
case $mode in
  asan) build=build-asan; sanitize=address; filter=${2:-*} ;;
  asan+ubsan) build=build-asan-ubsan; sanitize=address,undefined; filter=${2:-*} ;;
  tsan) build=build-tsan; sanitize=thread; filter=${2:-*}
        tests_matching='/core/(strategy|train|util)/|/test_(run_lock|run_reader|run_record|recorded_run|trace|simulated_link|sweep|strange_own_files|own_data_record)\.cpp$' ;;
  *) echo "sanitize.sh: '$mode' is none of asan, asan+ubsan, tsan" >&2; exit 2 ;;
esac

# -O1 keeps the instrumented tests quick enough; -g1 gives reports file and line at a fraction of
# full debug information's build time; a unity build (8 sources a unit) halves the build on two
# cores. (So two test files cannot both define a helper of the same name in an anonymous
# namespace: share it through tests/core/test_helpers.h instead.) No GUI, no GPU, no c10d
# workers (those are processes, not threads).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=8 \
  -DMIRROR_CORE_TESTS_MATCHING="${tests_matching:-}" -DMIRROR_SANITIZE="$sanitize" -DMIRROR_BUILD_GUI=OFF -DMIRROR_CUDA=OFF -DMIRROR_C10D=OFF >"$build-configure.log" 2>&1 || {
  cat "$build-configure.log" >&2
  exit 1
}
cmake --build "$build" -j"$(nproc)" --target mirror_core_tests -- --no-print-directory >"$build/build.log" 2>&1 || {
  tail -n 40 "$build/build.log" >&2
  exit 1
}

export OMP_NUM_THREADS=1 MIRROR_RUNS_DIR="$PWD/$build/runs"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/tests/tsan.supp"
# Under TSan the tests see one core (taskset), so each replica gets one intra-op thread and
# LibTorch starts no OpenMP pool: libgomp is not instrumented, and its barriers would read as races.
# TSan finds races from the order of synchronisation, not from timing, so one core loses nothing.
pin=()
[[ $mode == tsan ]] && command -v taskset >/dev/null && pin=(taskset -c "$(taskset -pc $$ | grep -oE '[0-9]+' | tail -1)")
log=$build/tests.log
start=$SECONDS
if "${pin[@]}" "$build/tests/mirror_core_tests" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1; then
  ran=$(grep -oE '^\[==========\] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
  skipped=$(grep -oE '^\[  SKIPPED \] [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
  echo "sanitize.sh: $mode: ${ran:-?} tests (${skipped:-0} skipped) in $((SECONDS - start)) s, no reports"
else
  echo "sanitize.sh: $mode FAILED; the end of $log:" >&2
  tail -n 60 "$log" >&2
  exit 1
fi
