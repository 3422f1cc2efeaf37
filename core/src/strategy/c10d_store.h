#pragma once
// The store where the workers of a run meet (one of c10d's), for c10d_workers.cpp. Built like it:
// with c10d's definitions and without the precompiled header.

#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <exception>
#include <string>

#include "mirror/strategy/workers.h"

namespace mirror {

// Opens the store of `env`'s run under our own prefix (torchrun's agent shares its store) and
// makes the first exchange with it: this rank's `host` name stored under "mirror/host/<rank>".
// - A local run (env.store_dir): c10d's FileStore in that private folder; no socket at all.
// - Rank 0 of a run started by hand or by Slurm: the TCPStore server at MASTER_ADDR:MASTER_PORT,
//   bound to MASTER_ADDR alone where LibTorch allows it (see bind_store_socket).
// - Any other rank, and rank 0 under torchrun: a client of the TCPStore there.
// Throws RunError within `timeout`, saying what to do: nothing listens at MASTER_ADDR:MASTER_PORT
// ("could not reach rank 0's store"), something does but is not a c10d store ("the process at
// ADDR:PORT is not a mirrortrain store"), rank 0's port is taken, the folder is not a private one.
// Operations on the store wait at most `timeout` for a key.
c10::intrusive_ptr<c10d::Store> open_worker_store(const WorkerEnv& env, std::chrono::milliseconds timeout,
                                                  const std::string& host);

// The first line of an error, without LibTorch's backtrace.
std::string first_line(const std::exception& e);

}  // namespace mirror
