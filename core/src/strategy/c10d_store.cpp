// The workers' store: a local run's FileStore, rank 0's TCPStore server, or a client of it.
// Tested by tests/core/strategy/test_store_socket.cpp and tests/core/strategy/test_local_workers.cpp.
#include "c10d_store.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/version.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <new>
#include <thread>

#include "mirror/strategy/store_socket.h"
#include "mirror/util/error.h"

namespace mirror {

std::string first_line(const std::exception& e) {
  std::string s = e.what();
  if (const auto* c = dynamic_cast<const c10::Error*>(&e)) s = c->what_without_backtrace();
  if (const auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

namespace {
using Bytes = std::vector<uint8_t>;

// A local run's folder, as LocalRendezvous makes it: a directory of this user that nobody else
// may open. Anything else named by MIRROR_STORE_DIR is refused.
void check_private_folder(const std::string& dir) {
  struct stat st {};
  const bool found = lstat(dir.c_str(), &st) == 0;
  if (found && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0) return;
  throw RunError(fmt::format("the workers' folder {} (MIRROR_STORE_DIR) {}; start the workers with `mirrortrain train "
                             "--nproc` or from the window, which make a fresh one for each run", dir,
                             found ? "is not a folder that only this user can open" : std::strerror(errno)));
}

c10::intrusive_ptr<c10d::Store> file_store(const WorkerEnv& env, std::chrono::milliseconds timeout) {
  check_private_folder(env.store_dir);
  try {
    auto store = c10::make_intrusive<c10d::FileStore>(env.store_dir + "/store", env.world_size);
    store->setTimeout(timeout);
    return store;
  } catch (const std::exception& e) {
    throw RunError(fmt::format("rank {} could not open the workers' store in {}: {}", env.rank, env.store_dir,
                               first_line(e)));
  }
}

// PyTorch 2.x: rank 0's store takes over a socket bound to MASTER_ADDR alone. LibTorch 1.13's
// options have no such field: its store listens on every interface. A template, so that the
// field is looked up only where it exists.
// Returns the socket handed over, if any.
template <class Options>
std::optional<int> listen_on_master_addr_only(Options& o, const WorkerEnv& env) {
  if constexpr (requires { o.masterListenFd; }) {
    if (const auto fd = bind_store_socket(env.master_addr, env.master_port)) {
      o.masterListenFd = *fd;
      // The libuv backend of some 2.x releases refuses a listening socket ("does not support
      // initialization with an listen fd"); the classic backend takes it wherever the field exists.
      if constexpr (requires { o.useLibUV; }) o.useLibUV = false;
      return fd;
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {
template <class Options>
constexpr bool kTakesListenFd = requires(Options o) { o.masterListenFd; };
}  // namespace

bool store_binds_master_addr() { return kTakesListenFd<c10d::TCPStoreOptions>; }

namespace {
c10::intrusive_ptr<c10d::Store> serve_store(const WorkerEnv& env, c10d::TCPStoreOptions o) {
  o.isServer = true;
  const std::optional<int> fd = listen_on_master_addr_only(o, env);
  try {
    return c10::make_intrusive<c10d::TCPStore>(env.master_addr, o);
  } catch (const std::exception& e) {
    if (fd) close(*fd);  // the store never took it over
    const std::string why = first_line(e);
    if (why.find("in use") != std::string::npos) throw store_port_taken(env.master_addr, env.master_port);
    throw store_not_served(env.master_addr, env.master_port, why);
  }
}

// What the thread that joins a TCPStore hands back.
struct Joining {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;                      // guarded by mutex
  std::string error;                      // guarded by mutex; empty: `store` answered as a store
  c10::intrusive_ptr<c10d::Store> store;  // guarded by mutex
};

// Connects to the TCPStore at `addr` and stores `value` under `key` then reads it back.
void exchange(Joining& j, const std::string& addr, const c10d::TCPStoreOptions& o, const std::string& prefix,
              const std::string& key, const Bytes& value) {
  c10::intrusive_ptr<c10d::Store> store;  // closed, if it is not handed over, after the caller has been told
  std::string error;
  try {
    store = c10::make_intrusive<c10d::PrefixStore>(prefix, c10::make_intrusive<c10d::TCPStore>(addr, o));
    store->set(key, value);
    if (store->get(key) != value) error = "it gave back other bytes than it was given";
  } catch (const std::bad_alloc&) {  // c10d read a length of billions from bytes of another protocol
    error = "it answered in another protocol";
  } catch (const std::exception& e) {
    error = first_line(e);
  }
  {
    std::lock_guard<std::mutex> lock(j.mutex);
    j.done = true;
    j.error = error;
    if (error.empty()) j.store = std::move(store);
  }
  j.finished.notify_all();
}

// A c10d store never sends before it is asked; programs that greet or spray bytes do so as soon
// as they accept. LibTorch 1.13's client would read such bytes on its watch thread, where the
// std::bad_alloc or std::length_error of a garbage length ends the process (SIGABRT), so they are
// looked for before it connects. A program may also wait, then send: so, built against 1.13, the
// probe also asks a store's question and wants a store's answer. (What passes speaks the store's
// protocol; only a store written to do harm could still send garbage later.)
constexpr std::chrono::milliseconds kStoreNeverSpeaksFirst{500};
constexpr bool kProbeAsksAQuestion = TORCH_VERSION_MAJOR < 2;

// A client of the TCPStore at MASTER_ADDR:MASTER_PORT, with `key` = `value` stored in it. What
// listens there may not be a store: one that speaks first, answers in another protocol, or never
// answers (a recv that blocks for ever and cannot be cancelled). So the exchange runs on a thread
// of its own and this one stops waiting at the deadline; a thread left blocked so stays blocked
// until the process exits, which it does next (the RunError ends the run).
c10::intrusive_ptr<c10d::Store> join_store(const WorkerEnv& env, const c10d::TCPStoreOptions& o,
                                           const std::string& prefix, const std::string& key, const Bytes& value) {
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(o.timeout).count();
  const StoreProbe probe = probe_store(env.master_addr, env.master_port, deadline, kStoreNeverSpeaksFirst,
                                       kProbeAsksAQuestion ? fmt::format("{}probe/{}", prefix, env.rank) : "");
  if (probe.outcome == StoreProbe::kUnreachable)
    throw RunError(fmt::format("rank {} could not reach rank 0's store at {}:{} within {} s ({}); start rank 0 and "
                               "check MASTER_ADDR and MASTER_PORT", env.rank, env.master_addr, env.master_port, secs,
                               probe.why));
  std::string why = probe.outcome == StoreProbe::kWrongAnswer ? probe.why : "it spoke before being asked";
  if (probe.outcome == StoreProbe::kQuiet) {
    auto j = std::make_shared<Joining>();
    std::thread([j, addr = env.master_addr, o, prefix, key, value] { exchange(*j, addr, o, prefix, key, value); }).detach();
    std::unique_lock<std::mutex> lock(j->mutex);
    if (j->finished.wait_until(lock, deadline, [&] { return j->done; }) && j->error.empty()) return j->store;
    why = j->done ? j->error : fmt::format("it accepted a connection but answered nothing within {} s", secs);
  }
  if (env.launcher_serves_store)
    // torchrun serves the store itself: one of another PyTorch version speaks another protocol
    // (Debian's torchrun 1.13 beside a build against PyPI's LibTorch 2.x, say).
    throw RunError(fmt::format("rank {} could not use the store that the launcher serves at {}:{} ({}): a launcher "
                               "of another PyTorch version speaks another protocol; start the workers with the "
                               "torchrun of PyTorch {}, the LibTorch this mirrortrain was built against",
                               env.rank, env.master_addr, env.master_port, why, TORCH_VERSION));
  throw RunError(fmt::format("the process at {}:{} is not a mirrortrain store ({}); another program holds that port: "
                             "give every worker the MASTER_ADDR and MASTER_PORT where rank 0 serves the store, or a "
                             "free port for all of them", env.master_addr, env.master_port, why));
}
}  // namespace

c10::intrusive_ptr<c10d::Store> open_worker_store(const WorkerEnv& env, std::chrono::milliseconds timeout,
                                                  const std::string& host) {
  const std::string prefix = fmt::format("mirror/{}/", env.attempt);
  const std::string key = fmt::format("mirror/host/{}", env.rank);
  const Bytes value(host.begin(), host.end());
  c10d::TCPStoreOptions o;
  o.port = static_cast<uint16_t>(env.master_port);
  o.numWorkers = env.world_size;
  o.waitWorkers = false;  // wait_for_everyone names who is missing
  o.timeout = timeout;
  if (env.store_dir.empty() && (env.rank != 0 || env.launcher_serves_store)) return join_store(env, o, prefix, key, value);
  auto store = c10::make_intrusive<c10d::PrefixStore>(prefix, env.store_dir.empty() ? serve_store(env, o)
                                                                                     : file_store(env, timeout));
  try {
    store->set(key, value);
  } catch (const std::exception& e) {
    throw RunError(fmt::format("rank {} could not write to the workers' store at {}: {}", env.rank, meeting_place(env),
                               first_line(e)));
  }
  return store;
}

}  // namespace mirror
