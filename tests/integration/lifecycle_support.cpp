#include "lifecycle_support.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "command.h"
#include "series_query.h"

namespace netif_rx::test {

Series scrape_until(ExporterProcess& exporter, const std::function<bool(const Series&)>& done,
                    int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  Series series = exporter.scrape();
  while (!done(series) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    series = exporter.scrape();
  }
  return series;
}

std::uint32_t netns_inode(const std::string& netns) {
  struct stat st {};
  if (::stat(("/run/netns/" + netns).c_str(), &st) != 0) return 0;
  return static_cast<std::uint32_t>(st.st_ino);
}

std::map<std::string, int> links_of(const std::string& netns) {
  // One line per link: "<ifindex> <name>", read in the namespace.
  const auto result = run_command(
      {"ip", "netns", "exec", netns, "sh", "-c",
       "for d in /sys/class/net/*; do printf '%s %s\\n' \"$(cat $d/ifindex)\" \"${d##*/}\"; done"});
  std::map<std::string, int> links;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos) continue;
    links[line.substr(space + 1)] = std::stoi(line.substr(0, space));
  }
  return links;
}

std::uint64_t link_statistic(const std::string& netns, const std::string& link,
                             const std::string& counter) {
  const auto result = run_command(
      {"ip", "netns", "exec", netns, "cat", "/sys/class/net/" + link + "/statistics/" + counter});
  return result.exit_code == 0 ? std::stoull(result.output) : 0;
}

std::uint64_t resident_bytes(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

void send_loopback_datagrams(const std::string& netns, int count) {
  run_or_fail({"ip", "-n", netns, "link", "set", "lo", "up"});
  run_or_fail(
      {"ip", "netns", "exec", netns, "bash", "-c",
       "for i in $(seq " + std::to_string(count) + "); do echo x > /dev/udp/127.0.0.1/9; done"});
}

double loopback_packets(const Series& series, std::uint32_t inode) {
  return sum_where(series, "netif_rx_packets_total",
                   {{"device", "lo"}, {"netns", std::to_string(inode)}});
}

}  // namespace netif_rx::test
