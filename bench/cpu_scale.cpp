#include "cpu_scale.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "http_client.h"
#include "pipeline/cpu_list.h"

namespace netif_rx::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The value of the first line of `name` without labels ("name value").
double metric(const std::string& text, const std::string& name) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.size() > name.size() && line.rfind(name, 0) == 0 && line[name.size()] == ' ')
      return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

// Devices with a netif_rx_packets_total series (one per device and netns).
int devices_of(const std::string& text) {
  std::set<std::string> devices;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("netif_rx_packets_total{", 0) != 0) continue;
    std::string key = line.substr(0, line.rfind(' '));
    const auto cpu = key.find("cpu=\"");
    if (cpu != std::string::npos) key.erase(cpu, key.find('"', cpu + 5) - cpu + 1);
    devices.insert(key);
  }
  return static_cast<int>(devices.size());
}

double status_mib(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
  }
  return 0;
}

struct Exporter {
  Exporter(const std::string& binary, const std::string& config, int port) {
    const std::string config_flag = "--config.file=" + config;
    const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
    pid = ::fork();
    if (pid == 0) {
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      ::execl(binary.c_str(), binary.c_str(), config_flag.c_str(), listen.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Exporter() {
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  Exporter(const Exporter&) = delete;
  Exporter& operator=(const Exporter&) = delete;
  pid_t pid;
};

}  // namespace

CpuScaleFigures measure_cpu_scale(const std::string& exporter, const std::string& config,
                                  int devices, int settle_seconds, int scrapes, int min_polls) {
  CpuScaleFigures figures;
  figures.possible_cpus =
      static_cast<unsigned>(present_cpus("/sys/devices/system/cpu/possible").size());
  const int port = free_port();
  Exporter process(exporter, config, port);
  const auto settled = Clock::now() + std::chrono::seconds(settle_seconds);
  // Emulated guests start slowly: two minutes to be ready and to see every device.
  const auto deadline = Clock::now() + std::chrono::minutes(2);
  std::string text;
  while (Clock::now() < deadline) {
    text = http_get(port, "/metrics");
    if (devices_of(text) >= devices && Clock::now() >= settled) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  if (devices_of(text) < devices) {
    throw std::runtime_error("the exporter showed " + std::to_string(devices_of(text)) +
                             " devices in 2 minutes, not " + std::to_string(devices));
  }
  const std::string sum = "netif_rx_exporter_poll_duration_seconds_sum";
  const std::string count = "netif_rx_exporter_poll_duration_seconds_count";
  const double sum0 = metric(text, sum);
  const double count0 = metric(text, count);
  std::vector<double> times;
  const auto scrapes_deadline = Clock::now() + std::chrono::minutes(3);
  while (static_cast<int>(times.size()) < scrapes ||
         (metric(text, count) - count0 < min_polls && Clock::now() < scrapes_deadline)) {
    const auto start = Clock::now();
    text = http_get(port, "/metrics");
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (text.empty()) throw std::runtime_error("the exporter did not answer /metrics");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  figures.polls = static_cast<int>(metric(text, count) - count0);
  if (figures.polls <= 0) throw std::runtime_error("no poll during the scrapes");
  figures.poll_ms = (metric(text, sum) - sum0) * 1000.0 / figures.polls;
  figures.scrape_ms = summarize(times);
  figures.devices = devices_of(text);
  figures.series = static_cast<int>(metric(text, "netif_rx_exporter_series"));
  figures.bytes = text.size();
  figures.rss_mib = status_mib(process.pid, "VmRSS");
  figures.peak_rss_mib = status_mib(process.pid, "VmHWM");
  return figures;
}

}  // namespace netif_rx::bench
