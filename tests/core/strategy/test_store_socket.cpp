// The sockets around the workers' TCPStore: rank 0's bound to MASTER_ADDR alone, and the look
// the other ranks take at what listens at MASTER_ADDR:MASTER_PORT before c10d joins it.
#include <arpa/inet.h>
#include <netdb.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "mirror/strategy/store_socket.h"
#include "mirror/util/error.h"
#include "test_helpers.h"

using namespace mirror;

namespace store_socket_tests {
// A TCP socket listening on 127.0.0.1 at a port the kernel picks; closed when it goes.
struct Listener {
  Listener() {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(fd, 4), 0);
    EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port = ntohs(a.sin_port);
  }
  ~Listener() { close(fd); }
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int port = 0;
};

std::string bound_address(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, text, sizeof text);
  return text;
}

const auto kSoon = std::chrono::milliseconds(2000);

TEST(StoreSocket, RankZeroListensOnMasterAddrOnly) {
  const auto fd = bind_store_socket("127.0.0.1", 0);
  ASSERT_TRUE(fd.has_value());
  EXPECT_EQ(bound_address(*fd), "127.0.0.1");  // not 0.0.0.0: other interfaces cannot reach it
  close(*fd);
}

TEST(StoreSocket, TakenPortIsRefusedAtOnceWithTheAddress) {
  Listener taken;
  const std::string m = mirror::testing::error_of<RunError>([&] { bind_store_socket("127.0.0.1", taken.port); });
  const std::string expected = "port " + std::to_string(taken.port) + " on 127.0.0.1 is already in use";
  EXPECT_NE(m.find(expected), std::string::npos) << m;
}

TEST(StoreSocket, AddressOfAnotherMachineIsRefused) {
  const std::string m = mirror::testing::error_of<RunError>([] { bind_store_socket("192.0.2.1", 0); });  // TEST-NET-1: nobody's
  EXPECT_NE(m.find("check MASTER_ADDR is an address of this machine"), std::string::npos) << m;
}

TEST(StoreSocket, OnlyThisMachinesOwnNameOnLoopbackIsLeftToC10d) {
  // "localhost" is this machine only: bound there, never on every interface.
  const auto local = bind_store_socket("localhost", 0);
  ASSERT_TRUE(local.has_value());
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ASSERT_EQ(getsockname(*local, reinterpret_cast<sockaddr*>(&bound), &len), 0);
  if (bound.ss_family == AF_INET)
    EXPECT_EQ(ntohl(reinterpret_cast<sockaddr_in*>(&bound)->sin_addr.s_addr) >> 24, 127u);
  else
    EXPECT_TRUE(IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(&bound)->sin6_addr));
  close(*local);
  // Debian maps the machine's own name to 127.0.1.1, which the other hosts cannot reach.
  char here[256] = {};
  ASSERT_EQ(gethostname(here, sizeof here - 1), 0);
  addrinfo* found = nullptr;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(here, "0", &hints, &found) != 0 || !found) GTEST_SKIP() << "this machine's name does not resolve";
  const bool on_loopback = found->ai_family == AF_INET
                               ? (ntohl(reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr.s_addr) >> 24) == 127
                               : IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr);
  freeaddrinfo(found);
  if (!on_loopback) GTEST_SKIP() << here << " resolves to a network address here";
  EXPECT_FALSE(bind_store_socket(here, 0).has_value());
}

TEST(StoreSocket, QuietListenerIsReachedAndOneThatSpeaksFirstIsNamed) {
  Listener quiet;
  const auto deadline = std::chrono::steady_clock::now() + kSoon;
  EXPECT_EQ(probe_store("127.0.0.1", quiet.port, deadline, std::chrono::milliseconds(50)).outcome, StoreProbe::kQuiet);

  Listener talker;
  std::thread greet([&] {  // accepts the probe and greets it, as an SSH or SMTP server does
    const int c = accept(talker.fd, nullptr, nullptr);
    (void)!write(c, "SSH-2.0\r\n", 9);
    char byte;
    (void)!read(c, &byte, 1);  // until the probe closes
    close(c);
  });
  EXPECT_EQ(probe_store("127.0.0.1", talker.port, deadline, kSoon).outcome, StoreProbe::kSpokeFirst);
  greet.join();
}

// Accepts one connection, reads a question in LibTorch 1.13's store protocol (ADD: query byte 3, the
// key's length and bytes, a number), then does `reply` with the number it was asked to add.
std::thread one_answer(const Listener& l, std::function<void(int fd, int64_t number)> reply) {
  return std::thread([&l, reply = std::move(reply)] {
    const int c = accept(l.fd, nullptr, nullptr);
    uint8_t query = 0;
    uint64_t length = 0;
    int64_t number = 0;
    EXPECT_EQ(recv(c, &query, 1, MSG_WAITALL), 1);
    EXPECT_EQ(query, 3);
    EXPECT_EQ(recv(c, &length, sizeof length, MSG_WAITALL), 8);
    std::string key(length, '\0');
    EXPECT_EQ(recv(c, key.data(), length, MSG_WAITALL), static_cast<ssize_t>(length));
    EXPECT_EQ(key, "mirror/0/probe/1");
    EXPECT_EQ(recv(c, &number, sizeof number, MSG_WAITALL), 8);
    reply(c, number);
    char byte;
    (void)!read(c, &byte, 1);  // until the probe closes
    close(c);
  });
}

TEST(StoreSocket, AProbeThatAsksWantsAStoresAnswerAndNothingMore) {
  const auto deadline = std::chrono::steady_clock::now() + kSoon;
  const auto quick = std::chrono::milliseconds(50);
  Listener store;
  std::thread answers = one_answer(store, [](int c, int64_t number) { (void)!write(c, &number, sizeof number); });
  const StoreProbe fine = probe_store("127.0.0.1", store.port, deadline, quick, "mirror/0/probe/1");
  answers.join();
  EXPECT_EQ(fine.outcome, StoreProbe::kQuiet) << fine.why;

  // Waits past the look for a greeting, then sends bytes of another protocol: what aborted a
  // worker built against LibTorch 1.13 once c10d's watch thread read them.
  Listener late;
  std::thread garbage = one_answer(late, [quick](int c, int64_t) {
    std::this_thread::sleep_for(4 * quick);
    (void)!write(c, "HTTP/1.1 400 Bad Request\r\n", 26);
  });
  const StoreProbe wrong = probe_store("127.0.0.1", late.port, deadline, quick, "mirror/0/probe/1");
  garbage.join();
  EXPECT_EQ(wrong.outcome, StoreProbe::kWrongAnswer);
  EXPECT_EQ(wrong.why, "it answered a store's question in another protocol");

  Listener chatty;
  std::thread more = one_answer(chatty, [](int c, int64_t number) {
    (void)!write(c, &number, sizeof number);
    (void)!write(c, "and more", 8);
  });
  const StoreProbe extra = probe_store("127.0.0.1", chatty.port, deadline, quick, "mirror/0/probe/1");
  more.join();
  EXPECT_EQ(extra.outcome, StoreProbe::kWrongAnswer);
  EXPECT_EQ(extra.why, "it sent more than a store's answer");

  Listener mute;  // accepts, reads the question and never answers: the probe gives up at the deadline
  std::thread silent = one_answer(mute, [](int, int64_t) {});
  const auto soon = std::chrono::steady_clock::now() + 4 * quick;
  const StoreProbe none = probe_store("127.0.0.1", mute.port, soon, quick, "mirror/0/probe/1");
  silent.join();
  EXPECT_EQ(none.outcome, StoreProbe::kWrongAnswer);
  EXPECT_NE(none.why.find("answered nothing in time"), std::string::npos) << none.why;
}

TEST(StoreSocket, NothingListeningIsUnreachableWithTheReason) {
  int port = 0;
  {
    Listener gone;
    port = gone.port;
  }
  const auto p = probe_store("127.0.0.1", port, std::chrono::steady_clock::now(), kSoon);
  EXPECT_EQ(p.outcome, StoreProbe::kUnreachable);
  EXPECT_NE(p.why.find("refused"), std::string::npos) << p.why;
}

}  // namespace store_socket_tests
