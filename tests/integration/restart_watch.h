// What the tests of restarts share: a steady stream of datagrams, and a watch
// over every data counter an exporter serves, whichever exporter serves it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "http_client.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {

// UDP datagrams from `netns` to `destination`, 20 every 10 ms, on a thread,
// until stop(); bounded in count and time.
class PacketStream {
 public:
  PacketStream(std::string netns, std::string destination, int payload_bytes = 100)
      : thread_(
            [this, netns = std::move(netns), destination = std::move(destination), payload_bytes] {
              const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
              while (!stopping_ && sent_ < 100000 && std::chrono::steady_clock::now() < deadline) {
                const int sent = send_udp(netns, 0, destination, 20, payload_bytes);
                if (sent > 0) sent_ += sent;
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
              }
            }) {}
  ~PacketStream() { stop(); }
  PacketStream(const PacketStream&) = delete;
  PacketStream& operator=(const PacketStream&) = delete;

  long long stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
    return sent_;
  }

 private:
  std::atomic<bool> stopping_{false};
  std::atomic<long long> sent_{0};
  std::thread thread_;
};

// Scrapes whichever exporter serves `port` every 20 ms on a thread: the
// longest time between two answered scrapes, and every data counter
// (netif_rx_*, not the exporter's own netif_rx_exporter_* nor the program's
// netif_rx_bpf_*) that went down. netif_rx_busiest_cpu_packets_total is the
// exporter's own sum over its polls, not the probe's: it starts again from
// the baseline at each restart (a counter reset, documented).
class ScrapeWatch {
 public:
  // `device_prefix`: only the series of devices named so, and those of no
  // device (empty: every series); other tests' devices come and go, and one
  // deleted and created again under its name starts a new series from zero.
  explicit ScrapeWatch(std::string device_prefix = "")
      : device_prefix_(std::move(device_prefix)), thread_([this] {
          std::optional<std::chrono::steady_clock::time_point> last_answer;
          while (!stopping_) {
            const int port = port_.load();
            const HttpResponse response = port > 0 ? http_get(port, "/metrics") : HttpResponse{};
            if (response.status == 200) {
              const auto now = std::chrono::steady_clock::now();
              const Series series = parse_exposition(response.body);
              std::lock_guard lock(mutex_);
              if (last_answer) longest_gap_ = std::max(longest_gap_, now - *last_answer);
              last_answer = now;
              ++scrapes_;
              for (const auto& [key, value] : series) {
                const std::string name = metric_of(key);
                if (!device_prefix_.empty()) {
                  const auto labels = labels_of(key);
                  const auto device = labels.find("device");
                  if (device != labels.end() && device->second.rfind(device_prefix_, 0) != 0)
                    continue;
                }
                // netif_rx_bpf_*: the kernel's statistics of the program now
                // counting, which each restart's handover replaces.
                if (name.rfind("netif_rx_", 0) != 0 || name.rfind("netif_rx_exporter_", 0) == 0 ||
                    name.rfind("netif_rx_bpf_", 0) == 0 ||
                    name == "netif_rx_busiest_cpu_packets_total" ||
                    // The drop counter is not pinned: its counts start at
                    // zero with each exporter (a counter reset).
                    name == "netif_rx_drops_total" || name == "netif_rx_backlog_drops_total" ||
                    name == "netif_rx_untracked_drops_total" ||
                    // Nor is the NAPI poll counter.
                    name.rfind("netif_rx_napi_", 0) == 0 ||
                    name.rfind("netif_rx_backlog_polls", 0) == 0 ||
                    name.rfind("netif_rx_backlog_polled", 0) == 0 ||
                    name.rfind("netif_rx_backlog_budget", 0) == 0 || name.size() < 6 ||
                    name.compare(name.size() - 6, 6, "_total") != 0) {
                  continue;
                }
                const auto [previous, fresh] = highest_.emplace(key, value);
                if (!fresh && value < previous->second) {
                  decreases_.push_back(key + ": " + std::to_string(previous->second) + " -> " +
                                       std::to_string(value));
                }
                previous->second = std::max(previous->second, value);
              }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~ScrapeWatch() { stop(); }
  ScrapeWatch(const ScrapeWatch&) = delete;
  ScrapeWatch& operator=(const ScrapeWatch&) = delete;

  void watch(int port) { port_ = port; }
  void stop() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::chrono::milliseconds longest_gap() const {
    std::lock_guard lock(mutex_);
    return std::chrono::duration_cast<std::chrono::milliseconds>(longest_gap_);
  }
  std::vector<std::string> decreases() const {
    std::lock_guard lock(mutex_);
    return decreases_;
  }
  int scrapes() const {
    std::lock_guard lock(mutex_);
    return scrapes_;
  }

 private:
  const std::string device_prefix_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> port_{0};
  mutable std::mutex mutex_;
  std::chrono::steady_clock::duration longest_gap_{};
  std::map<std::string, double> highest_;
  std::vector<std::string> decreases_;
  int scrapes_ = 0;
  std::thread thread_;
};

}  // namespace netif_rx::test
