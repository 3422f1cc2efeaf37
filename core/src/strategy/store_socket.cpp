#include "mirror/strategy/store_socket.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <strings.h>
#include <memory>
#include <random>
#include <thread>

namespace mirror {

namespace {
using AddrInfo = std::unique_ptr<addrinfo, decltype(&freeaddrinfo)>;

// `host`'s addresses for TCP to `port`; `error` is getaddrinfo's reason when there are none.
AddrInfo resolve(const std::string& host, int port, int flags, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | flags;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) error = gai_strerror(rc);
  return AddrInfo(rc == 0 ? found : nullptr, &freeaddrinfo);
}

bool is_loopback(const sockaddr* a) {
  if (a->sa_family == AF_INET)
    return (ntohl(reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr) >> 24) == 127;
  if (a->sa_family == AF_INET6) return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr);
  return false;
}

// Whether `name` is this machine's own name (short or canonical): the name Debian maps to 127.0.1.1
// here while the other hosts resolve it to this machine's network address.
bool names_this_host(const std::string& name) {
  char here[256] = {};
  if (gethostname(here, sizeof here - 1) != 0) return false;
  if (strcasecmp(name.c_str(), here) == 0) return true;
  addrinfo hints{};
  hints.ai_flags = AI_CANONNAME;
  addrinfo* found = nullptr;
  if (getaddrinfo(here, nullptr, &hints, &found) != 0 || !found) return false;
  const bool same = found->ai_canonname && strcasecmp(name.c_str(), found->ai_canonname) == 0;
  freeaddrinfo(found);
  return same;
}

// A TCP connection to `a` accepted within `wait`, or -1 and `error` says why not.
int connect_within(const addrinfo& a, std::chrono::milliseconds wait, std::string& error) {
  const int fd = socket(a.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = std::strerror(errno);
    return -1;
  }
  int rc = connect(fd, a.ai_addr, a.ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int so_error = ETIMEDOUT;
    socklen_t len = sizeof so_error;
    if (poll(&p, 1, static_cast<int>(wait.count())) == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
    errno = so_error;
    rc = so_error == 0 ? 0 : -1;
  }
  if (rc == 0) return fd;
  error = std::strerror(errno);
  close(fd);
  return -1;
}

// Whether the peer of `fd` sends a byte within `wait`. An end of stream or an error is no byte.
bool speaks_within(int fd, std::chrono::milliseconds wait) {
  pollfd p{fd, POLLIN, 0};
  char byte = 0;
  return poll(&p, 1, static_cast<int>(wait.count())) == 1 && recv(fd, &byte, 1, MSG_PEEK) == 1;
}

// Reads exactly `n` bytes from `fd` by `deadline`; false (with `error` saying why) otherwise.
bool read_by(int fd, char* out, size_t n, std::chrono::steady_clock::time_point deadline, std::string& error) {
  using namespace std::chrono;
  size_t got = 0;
  while (got < n) {
    const auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) != 1) {
      error = got == 0 ? "it answered nothing in time" : fmt::format("it answered {} of {} bytes in time", got, n);
      return false;
    }
    const ssize_t r = recv(fd, out + got, n - got, 0);
    if (r <= 0) {
      error = r == 0 ? "it closed the connection instead of answering" : std::strerror(errno);
      return false;
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

// LibTorch 1.13's store: query ADD (byte 3), the key (its length as a native size_t, then its
// bytes), the number to add (a native int64); the answer is the key's new value (a native int64).
// Empty: it answered so; else what it did instead.
std::string ask_to_add(int fd, const std::string& key, std::chrono::steady_clock::time_point deadline) {
  constexpr uint8_t kAdd = 3;
  std::random_device seed;
  const int64_t number = static_cast<int64_t>(((uint64_t{seed()} << 32) | seed()) >> 2) + 1;  // a fresh key: 0 + number
  std::string question(1, static_cast<char>(kAdd));
  const uint64_t length = key.size();
  question.append(reinterpret_cast<const char*>(&length), sizeof length).append(key);
  question.append(reinterpret_cast<const char*>(&number), sizeof number);
  if (send(fd, question.data(), question.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(question.size()))
    return fmt::format("it did not take a store's question ({})", std::strerror(errno));
  int64_t answer = 0;
  std::string error;
  if (!read_by(fd, reinterpret_cast<char*>(&answer), sizeof answer, deadline, error))
    return fmt::format("asked a store's question, {}", error);
  if (answer != number) return "it answered a store's question in another protocol";
  if (speaks_within(fd, std::chrono::milliseconds(100))) return "it sent more than a store's answer";
  return {};
}
}  // namespace

RunError store_port_taken(const std::string& master_addr, int port) {
  return RunError(fmt::format("port {} on {} is already in use, so rank 0 cannot serve the workers' store there: set "
                              "MASTER_PORT to a free port", port, master_addr));
}

RunError store_not_served(const std::string& master_addr, int port, const std::string& why) {
  return RunError(fmt::format("rank 0 could not serve the workers' store at {}:{} ({}); check MASTER_ADDR is an address "
                              "of this machine", master_addr, port, why));
}

std::optional<int> bind_store_socket(const std::string& master_addr, int port) {
  std::string error;
  const bool numeric = resolve(master_addr, port, AI_NUMERICHOST, error) != nullptr;
  const AddrInfo found = resolve(master_addr, port, 0, error);
  if (!found) throw store_not_served(master_addr, port, "cannot resolve it: " + error);
  const addrinfo& a = *found;
  if (!numeric && is_loopback(a.ai_addr) && names_this_host(master_addr)) return std::nullopt;
  const int fd = socket(a.ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  const bool ok = fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
                  bind(fd, a.ai_addr, a.ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0;
  if (ok) return fd;
  const int err = errno;
  if (fd >= 0) close(fd);
  if (err == EADDRINUSE) throw store_port_taken(master_addr, port);
  throw store_not_served(master_addr, port, std::strerror(err));
}

StoreProbe probe_store(const std::string& host, int port, std::chrono::steady_clock::time_point deadline,
                       std::chrono::milliseconds listen_for, const std::string& ask_key) {
  using namespace std::chrono;
  StoreProbe probe;
  for (;;) {
    const auto left = std::max(duration_cast<milliseconds>(deadline - steady_clock::now()), milliseconds(1));
    const AddrInfo found = resolve(host, port, 0, probe.why);
    for (const addrinfo* a = found.get(); a; a = a->ai_next) {
      const int fd = connect_within(*a, std::min(left, milliseconds(1000)), probe.why);
      if (fd < 0) continue;
      probe.outcome = speaks_within(fd, std::min(left, listen_for)) ? StoreProbe::kSpokeFirst : StoreProbe::kQuiet;
      if (probe.outcome == StoreProbe::kQuiet && !ask_key.empty()) {
        probe.why = ask_to_add(fd, ask_key, deadline);
        if (!probe.why.empty()) probe.outcome = StoreProbe::kWrongAnswer;
      }
      close(fd);
      return probe;
    }
    if (steady_clock::now() + milliseconds(100) > deadline) return probe;
    std::this_thread::sleep_for(milliseconds(100));
  }
}

}  // namespace mirror
