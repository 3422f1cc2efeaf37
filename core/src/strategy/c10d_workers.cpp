// WorkerGroup over PyTorch's c10d: a store for the rendezvous (c10d_store.cpp), ProcessGroupGloo
// for the collectives, and ProcessGroupNCCL for GPU replicas where the build has it (c10d_nccl.cpp).
// Built with USE_C10D_GLOO, without the PCH, like the other two files that include c10d.
// Tested by tests/core/strategy/test_local_workers.cpp,
//   tests/core/strategy/test_mirrored_processes.cpp and tests/cli/test_workers.sh.
#include <c10/util/Exception.h>
#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "c10d_nccl.h"
#include "c10d_store.h"
#include "mirror/strategy/communicator.h"
#include "mirror/strategy/workers.h"
#include "mirror/util/error.h"

namespace mirror {

namespace {
std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

// This host's address on the way to `master` (the source address the kernel picks for it): the
// interface the other workers can reach us on. Empty when there is no route.
std::string address_towards(const std::string& master, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(master.c_str(), std::to_string(port).c_str(), &hints, &found) != 0 || !found) return "";
  std::string out;
  const int fd = socket(found->ai_family, SOCK_DGRAM, 0);
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (fd >= 0 && connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* a = local.ss_family == AF_INET ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
                                               : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
    if (inet_ntop(local.ss_family, a, text, sizeof text)) out = text;
  }
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class C10dGroup;

// Sums float32 tensors across the processes with Gloo.
class GlooCommunicator : public Communicator {
 public:
  explicit GlooCommunicator(C10dGroup& group) : group_(group) {}
  std::shared_ptr<Work> allreduce_sum(int rank, std::vector<torch::Tensor>& tensors) override;
  // Gloo cannot be interrupted: a peer that stops makes its collectives fail, which ends ours.
  void abort(const std::string&) override {}
  void reset() override {}
  int world_size() const override;
  std::string name() const override { return "gloo"; }

 private:
  C10dGroup& group_;
};

class C10dGroup : public WorkerGroup {
 public:
  C10dGroup(const WorkerEnv& env, std::chrono::milliseconds timeout) : env_(env), timeout_(timeout) {}

  // Meets the others within `start` (timeout_ when zero); collectives wait timeout_ afterwards.
  void connect(std::chrono::milliseconds start) {
    const auto collectives = timeout_;
    if (start.count() > 0) timeout_ = start;
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout_).count();
    store_ = open_worker_store(env_, timeout_, this_host());
    try {
      wait_for_everyone(secs);
      for (int r = 0; r < env_.world_size; ++r) {
        const auto bytes = store_->get(fmt::format("mirror/host/{}", r));
        hosts_.emplace_back(bytes.begin(), bytes.end());
      }
      auto opts = c10d::ProcessGroupGloo::Options::create();
      opts->timeout = collectives;  // every rank has arrived: from here on, the collectives' patience
      // Gloo listens and connects on loopback for a local run; else on GLOO_SOCKET_IFNAME when set
      // (as in PyTorch), else on the address this host uses to reach the master, which the other
      // workers can reach too.
      const bool local_run = !env_.store_dir.empty();
      const char* ifname = local_run ? nullptr : std::getenv("GLOO_SOCKET_IFNAME");
      const std::string local = local_run ? "127.0.0.1" : address_towards(env_.master_addr, env_.master_port);
      if (ifname && *ifname)
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
      else if (!local.empty())
        opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(local));
      else
        opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
      pg_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store_, env_.rank, env_.world_size, opts);
    } catch (const RunError&) {
      throw;
    } catch (const std::exception& e) {
      throw RunError(fmt::format("rank {} could not join the other workers' Gloo group within {} s: {}", env_.rank,
                                 secs, first_line(e)));
    }
    comm_ = std::make_shared<GlooCommunicator>(*this);
    timeout_ = collectives;
  }

  // Waits until every rank has said where it runs; names the ranks that never came.
  void wait_for_everyone(int64_t secs) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (;;) {
      std::string missing;
      int count = 0;
      for (int r = 0; r < env_.world_size; ++r)
        if (!store_->check({fmt::format("mirror/host/{}", r)})) {
          missing += fmt::format("{}{}", missing.empty() ? "" : ", ", r);
          ++count;
        }
      if (missing.empty()) return;
      if (std::chrono::steady_clock::now() > deadline)
        throw RunError(fmt::format("rank {} waited {} s at {} but {} {} of {} never came; {}", env_.rank, secs,
                                   meeting_place(env_), count == 1 ? "rank" : "ranks", missing, env_.world_size,
                                   env_.store_dir.empty()
                                       ? "start every worker with the same WORLD_SIZE, MASTER_ADDR and MASTER_PORT"
                                       : "a worker failed to start; see its message above"));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  const WorkerEnv& env() const override { return env_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  std::shared_ptr<Communicator> communicator() override { return comm_; }

  std::shared_ptr<Communicator> communicator_for(int gpu, std::string* why) override {
    const auto all = allgather({static_cast<double>(gpu)});
    std::vector<int> gpus;
    for (const auto& g : all) gpus.push_back(static_cast<int>(g.at(0)));
    const auto choice = choose_cross_process(gpus, hosts_, c10d_nccl_built());
    if (why) *why = choice.reason;
    if (!choice.nccl) return comm_;
    if (!nccl_)
      nccl_ = make_c10d_nccl(store_, env_.rank, env_.world_size, timeout_,
                             [this](const std::exception& e) { lost("cross-process all-reduce over NCCL", e); });
    return nccl_;
  }

  std::vector<std::vector<double>> allgather(const std::vector<double>& mine) override {
    auto in = torch::tensor(mine, torch::kFloat64);
    std::vector<torch::Tensor> inputs = {in};
    std::vector<std::vector<torch::Tensor>> outputs(1);
    for (int r = 0; r < env_.world_size; ++r) outputs[0].push_back(torch::empty_like(in));
    try {
      pg_->allgather(outputs, inputs)->wait(timeout_);
    } catch (const std::exception& e) {
      lost("exchange of step results", e);
    }
    std::vector<std::vector<double>> out;
    for (const auto& t : outputs[0]) out.emplace_back(t.data_ptr<double>(), t.data_ptr<double>() + t.numel());
    return out;
  }

  void check_same(const std::string& what, const std::string& mine) override {
    const std::string key = "mirror/same/" + what;
    std::string why;
    try {
      if (env_.rank == 0) {
        store_->set(key, std::vector<uint8_t>(mine.begin(), mine.end()));
      } else {
        const auto bytes = store_->get(key);
        const auto ref = lines(std::string(bytes.begin(), bytes.end()));
        const auto here = lines(mine);
        for (size_t i = 0; i < std::max(ref.size(), here.size()) && why.empty(); ++i) {
          const std::string a = i < ref.size() ? ref[i] : "(nothing)", b = i < here.size() ? here[i] : "(nothing)";
          if (a != b)
            why = fmt::format("rank {}'s {} differs from rank 0's at `{}` (rank 0 has `{}`); start every worker "
                              "with the same command and files", env_.rank, what, trim(b), trim(a));
        }
      }
      if (!why.empty()) store_->set(fmt::format("mirror/why/{}/{}", what, env_.rank), std::vector<uint8_t>(why.begin(), why.end()));
    } catch (const std::exception& e) {
      lost("comparison of the workers' " + what, e);
    }
    const auto flags = allgather({why.empty() ? 0.0 : 1.0});
    for (int r = 0; r < env_.world_size; ++r) {
      if (flags[static_cast<size_t>(r)][0] == 0) continue;
      if (why.empty()) {
        const auto bytes = store_->get(fmt::format("mirror/why/{}/{}", what, r));
        why = std::string(bytes.begin(), bytes.end());
      }
      throw ConfigError(why);
    }
  }

  void barrier() override {
    try {
      pg_->barrier()->wait(timeout_);
    } catch (const std::exception& e) {
      lost("barrier", e);
    }
  }

  // Ends a collective that failed: finds out through the store which workers are gone (a worker
  // that is still there answers within a few seconds) and says so in one line.
  [[noreturn]] void lost(const std::string& during, const std::exception& e) {
    const std::string why = first_line(e);
    std::vector<int> gone;
    try {
      const std::string key = fmt::format("mirror/alive/{}", ++failures_);
      store_->set(fmt::format("{}/{}", key, env_.rank), std::vector<uint8_t>{1});
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      for (;;) {
        gone.clear();
        for (int r = 0; r < env_.world_size; ++r)
          if (!store_->check({fmt::format("{}/{}", key, r)})) gone.push_back(r);
        if (gone.empty() || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    } catch (const std::exception&) {
      gone = {0};  // a TCPStore lives in rank 0's process (a local run's folder outlives every worker)
    }
    if (gone.empty())
      throw RunError(fmt::format("the {} failed on rank {} of {}: {}", during, env_.rank, env_.world_size, why));
    std::string names;
    for (int r : gone)
      names += fmt::format("{}rank {} on {}", names.empty() ? "" : ", ", r,
                           r < static_cast<int>(hosts_.size()) ? hosts_[static_cast<size_t>(r)] : "?");
    throw RunError(fmt::format("lost worker {} during the {} ({}); every worker stops; once all of them can run "
                               "again, continue the run with --resume", names, during, why));
  }

  // CPU tensors are summed in Gloo's own threads: the Work returned completes asynchronously
  // (several may be in flight; Gloo matches them across processes in the order they were issued).
  // GPU tensors (Gloo chosen where NCCL cannot be: see communicator_for) are summed through the
  // host: copied out, reduced and copied back before this returns, so that the other replica
  // threads may read them at once.
  std::shared_ptr<Work> allreduce(std::vector<torch::Tensor>& tensors) {
    c10d::AllreduceOptions o;
    o.reduceOp = c10d::ReduceOp::SUM;
    o.timeout = timeout_;
    const bool staged = !tensors.empty() && !tensors.front().device().is_cpu();
    if (!staged) {
      try {
        return std::make_shared<GlooWork>(*this, pg_->allreduce(tensors, o));
      } catch (const std::exception& e) {
        lost("cross-process all-reduce", e);
      }
    }
    std::vector<torch::Tensor> host;
    for (const auto& t : tensors) host.push_back(t.to(torch::kCPU));
    try {
      pg_->allreduce(host, o)->wait(timeout_);
    } catch (const std::exception& e) {
      lost("cross-process all-reduce", e);
    }
    for (size_t i = 0; i < tensors.size(); ++i) tensors[i].copy_(host[i]);
    // Reading one element back waits for the copies queued before it on this thread's stream.
    (void)tensors.back().reshape({-1})[0].item<float>();
    return completed_work();
  }

 private:
  // A collective in Gloo's threads; its wait ends a failed one as lost() says.
  class GlooWork : public Work {
   public:
    GlooWork(C10dGroup& group, c10::intrusive_ptr<c10d::Work> work) : group_(group), work_(std::move(work)) {
      // Gloo's thread marks the moment the sum is done (the timeline's overlapped all-reduce).
      work_->getFuture()->addCallback(
          [done = done_](c10::ivalue::Future&) { done->store(std::chrono::steady_clock::now().time_since_epoch().count()); });
    }
    void wait() override {
      try {
        work_->wait(group_.timeout_);
      } catch (const std::exception& e) {
        group_.lost("cross-process all-reduce", e);
      }
    }
    bool is_completed() const override { return work_->isCompleted(); }
    std::chrono::steady_clock::time_point completed_at() const override {
      return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(done_->load()));
    }

   private:
    C10dGroup& group_;
    c10::intrusive_ptr<c10d::Work> work_;
    std::shared_ptr<std::atomic<std::chrono::steady_clock::rep>> done_ =
        std::make_shared<std::atomic<std::chrono::steady_clock::rep>>(0);
  };

  static std::string trim(const std::string& s) {
    const auto a = s.find_first_not_of(' ');
    std::string t = a == std::string::npos ? "" : s.substr(a);
    if (!t.empty() && t.back() == ',') t.pop_back();
    return t;
  }

  WorkerEnv env_;
  std::chrono::milliseconds timeout_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> pg_;
  std::vector<std::string> hosts_;
  std::shared_ptr<Communicator> comm_;
  std::shared_ptr<Communicator> nccl_;  // made on the first call of communicator_for that chose NCCL
  int64_t failures_ = 0;
};

std::shared_ptr<Work> GlooCommunicator::allreduce_sum(int, std::vector<torch::Tensor>& tensors) {
  return group_.allreduce(tensors);
}

int GlooCommunicator::world_size() const { return group_.world_size(); }

// c10d logs its socket retries and timeouts through glog, before our one-line message says the
// same; keep glog to fatal errors unless the user asked for its output (GLOG_minloglevel).
void quiet_c10d_logging() {
  if (std::getenv("GLOG_minloglevel")) return;
  if (auto* level = static_cast<int32_t*>(dlsym(RTLD_DEFAULT, "_ZN3fLI17FLAGS_minloglevelE"))) *level = 3;
}
}  // namespace

std::shared_ptr<WorkerGroup> WorkerGroup::connect(const WorkerEnv& env, std::chrono::milliseconds timeout,
                                                  std::chrono::milliseconds start_timeout) {
  quiet_c10d_logging();
  auto group = std::make_shared<C10dGroup>(env, timeout);
  group->connect(start_timeout);
  return group;
}

bool c10d_available() { return true; }

#ifndef MIRROR_HAVE_C10D_NCCL
bool c10d_nccl_built() { return false; }
std::shared_ptr<Communicator> make_c10d_nccl(const c10::intrusive_ptr<c10d::Store>&, int, int, std::chrono::milliseconds,
                                             std::function<void(const std::exception&)>) {
  throw std::logic_error("make_c10d_nccl in a build without NCCL across processes");
}
#endif

}  // namespace mirror
