// Work in a test namespace without starting a process: a thread of its own enters the namespace
// (setns moves only the calling thread, and so does sched_setaffinity). A process would cost a
// fork of this large sanitizer build, or `ip netns exec`'s mount namespace, each time: under
// emulation in the kernel matrix's guests, most of a test's time.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace netif_rx::test {

// Runs `work` on a new thread that has entered /run/netns/NETNS (stays in the caller's namespace
// when NETNS is empty) and, when `cpu` is given, is pinned to it; waits for it. False, and `work`
// not run, when the thread could not enter or pin.
bool run_in_netns(const std::string& netns, std::optional<unsigned> cpu,
                  const std::function<void()>& work);

// Sets the sysctl KEY (dotted, as sysctl(8) takes it: "net.ipv6.conf.LINK.disable_ipv6") to VALUE
// in NETNS (the /proc/sys/net a thread sees is its namespace's). False when it could not.
bool set_netns_sysctl(const std::string& netns, const std::string& key, const std::string& value);

// LINK's hardware address in NETNS ("aa:bb:cc:dd:ee:ff"), empty when it has none to read.
std::string link_mac(const std::string& netns, const std::string& link);

}  // namespace netif_rx::test
