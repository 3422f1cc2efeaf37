#pragma once
// The sockets around the workers' TCPStore at MASTER_ADDR:MASTER_PORT (multi-host and
// hand-started runs; local runs meet in a folder and use none of this): rank 0's listening socket
// bound to MASTER_ADDR only, and the other ranks' look at what listens there before c10d joins it. The
// store itself is unauthenticated: whoever reaches it can read and write the run's keys. No torch
// here; every function is thread-safe.

#include <chrono>
#include <optional>
#include <string>

#include "mirror/util/error.h"

namespace mirror {

// Rank 0's listening socket for its TCPStore, bound to `master_addr`:`port` only (SO_REUSEADDR,
// as c10d binds its own) and listening, for LibTorch to take over (TCPStoreOptions::masterListenFd,
// PyTorch 2.x; LibTorch 1.13 cannot, and its store listens on every interface). The caller owns
// the descriptor. nullopt when `master_addr` is this machine's own name and resolves to a loopback
// address here (Debian maps it to 127.0.1.1, which the other hosts cannot reach): the store then
// listens on every interface, as c10d's does. Any other name ("localhost") binds what it resolves to. Throws RunError at once, naming the
// address and port, when another process holds the port ("already in use") or the address is
// not one of this machine's.
std::optional<int> bind_store_socket(const std::string& master_addr, int port);

// What answers at `host`:`port`, tried every 100 ms until `deadline`. Once a TCP connection is
// accepted, waits `listen_for` (at most until `deadline`) for the peer to send first, which a c10d
// store never does and a program that greets or sprays bytes does at once. With `ask_key` set, a
// quiet peer is then asked a question in LibTorch 1.13's store protocol (add a random number to
// `ask_key`, a key of its own) and must answer with that number, and nothing more, by `deadline`:
// a program that waits, then sends bytes of another protocol, fails here rather than on c10d's
// watch thread (where LibTorch 1.13 aborts the process). PyTorch 2.x's store expects another
// first message; its client checks the protocol itself. Then closes the connection (c10d's store
// and torchrun's drop such a client and carry on).
struct StoreProbe {
  enum Outcome { kQuiet, kSpokeFirst, kWrongAnswer, kUnreachable } outcome = kUnreachable;
  // kUnreachable: why the last try failed ("Connection refused", an unknown host); kWrongAnswer:
  // what came back instead of the answer.
  std::string why;
};
StoreProbe probe_store(const std::string& host, int port, std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds listen_for, const std::string& ask_key = {});

// The errors of rank 0's store, one wording whether LibTorch or bind_store_socket found them:
// another process holds the port; the store cannot listen there for reason `why`.
RunError store_port_taken(const std::string& master_addr, int port);
RunError store_not_served(const std::string& master_addr, int port, const std::string& why);

}  // namespace mirror
