// The exporter serves /metrics only once it is ready: from the moment it
// listens (before the probe is loaded) until the probe is attached, the first
// poll is done and every thread gave up its capabilities, /metrics and
// /-/ready answer 503 naming the startup step, and /-/healthy answers 200.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "exporter_process.h"

namespace netif_rx::test {
namespace {

// The union of the effective and permitted capabilities of every thread of `pid`.
std::uint64_t capabilities_of_threads(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(tasks.c_str()), ::closedir);
  std::uint64_t held = 0;
  if (!dir) return held;
  while (const dirent* entry = ::readdir(dir.get())) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream status(tasks + "/" + entry->d_name + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("CapEff:", 0) == 0 || line.rfind("CapPrm:", 0) == 0) {
        held |= std::stoull(line.substr(7), nullptr, 16);
      }
    }
  }
  return held;
}

bool starting_answer(const HttpResponse& response) {
  return response.status == 503 && response.body.rfind("Not ready: starting (", 0) == 0;
}

TEST(Readiness, MetricsAndReadyAnswer503UntilStartedWhileHealthyAnswers) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  // bpf_stats off: no helper, so the exporter's own threads are all there is.
  ExporterProcess exporter("poll_interval: 200ms\nbpf_stats:\n  mode: \"off\"\n");
  int starting_metrics = 0;
  int starting_ready = 0;
  int healthy_while_starting = 0;
  std::string a_starting_body;
  bool served = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!served && std::chrono::steady_clock::now() < deadline) {
    const HttpResponse metrics = exporter.get("/metrics");
    const HttpResponse ready = exporter.get("/-/ready");
    const HttpResponse healthy = exporter.get("/-/healthy");
    if (metrics.status == 200) {
      // Startup was over before this answer: no thread holds a capability.
      EXPECT_EQ(capabilities_of_threads(exporter.pid()), 0U)
          << "/metrics answered 200 while a thread still held capabilities";
      EXPECT_NE(metrics.body.find("\nnetif_rx_exporter_probe_attached 1\n"), std::string::npos);
      served = true;
      break;
    }
    // civetweb listens a moment before the handlers are registered, one
    // after the other: a request in that moment gets civetweb's own 404.
    const bool no_handler_yet = starting_metrics == 0 && metrics.status == 404;
    const bool no_ready_handler_yet = starting_ready == 0 && ready.status == 404;
    if (metrics.status != 0 && !no_handler_yet) {
      ASSERT_TRUE(starting_answer(metrics))
          << "/metrics before startup was done: " << metrics.status << " " << metrics.body;
      ++starting_metrics;
      a_starting_body = metrics.body;
    }
    if (ready.status != 0 && ready.status != 200 && !no_ready_handler_yet) {
      ASSERT_TRUE(starting_answer(ready)) << ready.status << " " << ready.body;
      ++starting_ready;
      if (healthy.status == 200) ++healthy_while_starting;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_TRUE(served) << "/metrics never answered 200 within 30 s\n" << exporter.log();
  std::cout << "while starting: /metrics 503 x" << starting_metrics << ", /-/ready 503 x"
            << starting_ready << ", /-/healthy 200 x" << healthy_while_starting << "; e.g. "
            << a_starting_body;
  // The exporter listens before it loads the probe: the sanitizer build takes
  // hundreds of milliseconds from there to the end of startup.
  EXPECT_GT(starting_metrics, 0) << "no 503 seen from /metrics while starting";
  EXPECT_GT(healthy_while_starting, 0) << "/-/healthy did not answer 200 while starting";
  EXPECT_NE(a_starting_body.find("metrics are served once the probe is attached"),
            std::string::npos);
  ASSERT_TRUE(exporter.wait_ready(10000)) << exporter.log();
  EXPECT_EQ(exporter.get("/-/ready").body, "Ready\n");
  EXPECT_EQ(exporter.get("/metrics").status, 200);
  EXPECT_EQ(exporter.stop(), 0);
}

}  // namespace
}  // namespace netif_rx::test
