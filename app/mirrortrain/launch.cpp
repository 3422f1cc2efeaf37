// `train --nproc N`: local worker processes started the way torchrun starts them.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.h"

namespace mirror::cli {

namespace {
std::vector<pid_t> g_children;

extern "C" void forward_signal(int sig) {
  for (pid_t p : g_children)
    if (p > 0) kill(p, sig);
}

// A TCP port on 127.0.0.1 that nothing listens on now (the store's rank 0 binds it next).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 29500;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 29500;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}
}  // namespace

int launch_local_workers(int n, char** argv) {
  const std::string port = std::getenv("MASTER_PORT") ? std::getenv("MASTER_PORT") : std::to_string(free_port());
  std::signal(SIGINT, forward_signal);
  std::signal(SIGTERM, forward_signal);
  for (int rank = 0; rank < n; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) {
      fmt::print(stderr, "mirrortrain: error: cannot start worker {}: fork failed\n", rank);
      forward_signal(SIGTERM);
      break;
    }
    if (pid == 0) {
      setenv("RANK", std::to_string(rank).c_str(), 1);
      setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
      setenv("WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", std::to_string(n).c_str(), 1);
      setenv("MASTER_ADDR", "127.0.0.1", 1);
      setenv("MASTER_PORT", port.c_str(), 1);
      setenv("MIRROR_LAUNCHER", "mirrortrain --nproc", 1);
      std::signal(SIGINT, SIG_DFL);
      std::signal(SIGTERM, SIG_DFL);
      execv("/proc/self/exe", argv);
      std::_Exit(127);
    }
    g_children.push_back(pid);
  }
  std::vector<int> codes(g_children.size(), kExitRunFailed);
  for (size_t done = 0; done < g_children.size();) {
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0) break;
    for (size_t r = 0; r < g_children.size(); ++r)
      if (g_children[r] == pid) {
        codes[r] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        g_children[r] = -1;
        ++done;
      }
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (codes.empty()) return kExitRunFailed;
  if (codes[0] != 0) return codes[0];
  for (int c : codes)
    if (c != 0) return c;
  return kExitOk;
}

}  // namespace mirror::cli
