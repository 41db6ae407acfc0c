#include "netns_thread.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

#include "util/unique_fd.h"

namespace netif_rx::test {

bool run_in_netns(const std::string& netns, std::optional<unsigned> cpu,
                  const std::function<void()>& work) {
  bool entered = false;
  std::thread([&] {
    if (!netns.empty()) {
      const UniqueFd ns(::open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC));
      if (!ns.valid() || ::setns(ns.get(), CLONE_NEWNET) != 0) return;
    }
    if (cpu) {
      cpu_set_t cpus;
      CPU_ZERO(&cpus);
      CPU_SET(*cpu, &cpus);
      if (::sched_setaffinity(0, sizeof cpus, &cpus) != 0) return;
    }
    entered = true;
    work();
  }).join();
  return entered;
}

bool set_netns_sysctl(const std::string& netns, const std::string& key, const std::string& value) {
  std::string path = "/proc/sys/" + key;
  std::replace(path.begin() + 10, path.end(), '.', '/');
  bool written = false;
  const bool entered = run_in_netns(netns, std::nullopt, [&] {
    const UniqueFd file(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    written = file.valid() &&
              ::write(file.get(), value.data(), value.size()) == static_cast<ssize_t>(value.size());
  });
  return entered && written;
}

std::string link_mac(const std::string& netns, const std::string& link) {
  std::string mac;
  run_in_netns(netns, std::nullopt, [&] {
    const UniqueFd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    ifreq request{};
    if (!sock.valid() || link.size() >= sizeof request.ifr_name) return;
    std::memcpy(request.ifr_name, link.data(), link.size());
    if (::ioctl(sock.get(), SIOCGIFHWADDR, &request) != 0) return;
    const auto* bytes = reinterpret_cast<const unsigned char*>(request.ifr_hwaddr.sa_data);
    char text[18];
    std::snprintf(text, sizeof text, "%02x:%02x:%02x:%02x:%02x:%02x", bytes[0], bytes[1], bytes[2],
                  bytes[3], bytes[4], bytes[5]);
    mac = text;
  });
  return mac;
}

}  // namespace netif_rx::test
