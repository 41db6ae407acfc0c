// `netif_rx_exporter top` against the real kernel: known veth traffic during
// the span shows on the right device and CPU with the exact count, in the
// table and in JSON, from the probe top loads and from a running exporter.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "exporter_process.h"
#include "pipeline/cpu_list.h"
#include "test_network.h"
#include "top_process.h"

namespace netif_rx::test {
namespace {

constexpr int kPayloadBytes = 100;
constexpr int kTimeoutMs = 30000;

bool has_escape_codes(const std::string& text) { return text.find('\x1b') != std::string::npos; }

// The object of `device` in top's JSON: from its "device" key to the next
// device's (device names here have no quotes to escape).
std::string json_device(const std::string& json, const std::string& device) {
  const std::size_t start = json.find("{\"device\":\"" + device + "\"");
  if (start == std::string::npos) return "";
  const std::size_t end = json.find("{\"device\":", start + 1);
  return json.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The text block of `device` in top's table: its title line and CPU rows.
std::string text_block(const std::string& text, const std::string& device) {
  const std::size_t start = text.find("\n" + device + ": ");
  if (start == std::string::npos) return "";
  std::size_t end = text.find("\n\n", start + 1);
  if (end == std::string::npos) end = text.size() - 1;  // the last block: drop its '\n'
  return text.substr(start + 1, end - start - 1);
}

std::string cpu_row_prefix(unsigned cpu) {
  return "[" + std::to_string(cpu) + ", " + std::to_string(cpu + 1) + ")";
}

class TopCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const int pid = ::getpid();
    network_ = std::make_unique<TestNetwork>("nrt" + std::to_string(pid % 100000));
    ns_ = network_->add_namespace("a");
    // A /30 of 192.0.2.0/24 picked by pid, apart from other tests' first ones.
    pair_ = network_->add_veth_pair("h0", "", "a0", ns_, 8 + pid % 48);
  }
  static void TearDownTestSuite() { network_.reset(); }

  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "top loads BPF: run the integration tests as root";
    ASSERT_FALSE(pair_.a.name.empty());
  }

  // The device top should see: the host end, which receives what A sends.
  static const std::string& device() { return pair_.a.name; }
  // The last present CPU: not 0, where stray work tends to land.
  static unsigned busy_cpu() { return present_cpus().back(); }

  // Runs `top` with `args`, sends `count` datagrams from the namespace on
  // busy_cpu() once the span has begun, and waits for top to finish.
  static void run_with_traffic(TopProcess& top, int count) {
    ASSERT_TRUE(top.wait_for_stderr("measuring for", kTimeoutMs))
        << "top did not start measuring; it said:\n"
        << top.err();
    ASSERT_EQ(send_udp(ns_, busy_cpu(), pair_.a.address, count, kPayloadBytes), count);
    ASSERT_EQ(top.wait(kTimeoutMs), 0) << "stderr:\n" << top.err() << "\nstdout:\n" << top.out();
  }

  static inline std::unique_ptr<TestNetwork> network_;
  static inline std::string ns_;
  static inline VethPair pair_;
};

TEST_F(TopCommandTest, OnceTableShowsTheDeviceCpuAndExactCount) {
  constexpr int kCount = 437;
  TopProcess top({"top", "--once", "--duration", "3s"});
  run_with_traffic(top, kCount);
  if (HasFatalFailure()) return;

  const std::string& out = top.out();
  EXPECT_FALSE(has_escape_codes(out)) << "escape codes in piped output:\n" << out;
  EXPECT_EQ(out.rfind("packets per device and CPU over ", 0), 0U) << out;
  const std::string block = text_block(out, device());
  ASSERT_FALSE(block.empty()) << device() << " missing from:\n" << out;
  EXPECT_EQ(block.rfind(device() + ": " + std::to_string(kCount) + " packets", 0), 0U) << block;
  // One row, the busy CPU's, with the whole bar: lhist shows the busy range.
  const std::string row = block.substr(block.find('\n') + 1);
  EXPECT_EQ(row.rfind(cpu_row_prefix(busy_cpu()), 0), 0U) << block;
  EXPECT_NE(row.find(" " + std::to_string(kCount) + " |@"), std::string::npos) << block;
  EXPECT_EQ(row.find('\n'), std::string::npos) << "only the busy CPU has a row:\n" << block;
  EXPECT_EQ(row.back(), '|');
  EXPECT_LE(row.size(), 80U) << "80 columns without a terminal or COLUMNS";
}

TEST_F(TopCommandTest, OnceJsonShowsTheDeviceCpuAndExactCount) {
  constexpr int kCount = 291;
  const int bytes = kCount * udp_skb_len(kPayloadBytes);
  TopProcess top({"top", "--once", "--duration=3s", "--output=json"});
  run_with_traffic(top, kCount);
  if (HasFatalFailure()) return;

  const std::string& out = top.out();
  EXPECT_FALSE(has_escape_codes(out));
  EXPECT_EQ(out.rfind("{\"source\":\"the probe\",\"span_seconds\":", 0), 0U) << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "one document on one line";
  const std::string object = json_device(out, device());
  ASSERT_FALSE(object.empty()) << device() << " missing from:\n" << out;
  EXPECT_NE(object.find("\"packets\":" + std::to_string(kCount) +
                        ",\"bytes\":" + std::to_string(bytes) + ",\"packets_per_second\":"),
            std::string::npos)
      << object;
  for (unsigned cpu : present_cpus()) {
    const std::string expected =
        cpu == busy_cpu()
            ? "{\"cpu\":" + std::to_string(cpu) + ",\"packets\":" + std::to_string(kCount) +
                  ",\"bytes\":" + std::to_string(bytes) + ","
            : "{\"cpu\":" + std::to_string(cpu) + ",\"packets\":0,\"bytes\":0,";
    EXPECT_NE(object.find(expected), std::string::npos) << "cpu " << cpu << ": " << object;
  }
}

TEST_F(TopCommandTest, FromARunningExporterGivesTheSameNumbersAsItsMetrics) {
  // The veth kept per CPU (per_cpu.include), as a physical device is by default.
  ExporterProcess exporter("poll_interval: 100ms\nper_cpu:\n  include: ['" + device() + "']\n");
  ASSERT_TRUE(exporter.wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                     << exporter.log();
  constexpr int kCount = 353;
  const int bytes = kCount * udp_skb_len(kPayloadBytes);
  const std::string url = "http://127.0.0.1:" + std::to_string(exporter.port()) + "/metrics";
  TopProcess top({"top", "--once", "--duration=3s", "--output=json", "--from", url});
  run_with_traffic(top, kCount);
  if (HasFatalFailure()) return;

  const std::string object = json_device(top.out(), device());
  ASSERT_FALSE(object.empty()) << device() << " missing from:\n" << top.out();
  const std::string cpu = std::to_string(busy_cpu());
  EXPECT_NE(object.find("{\"cpu\":" + cpu + ",\"packets\":" + std::to_string(kCount) +
                        ",\"bytes\":" + std::to_string(bytes) + ","),
            std::string::npos)
      << object;
  // Nothing else reaches the device, so its counters stand still: top's
  // totals at the end of the span are what /metrics says now.
  const Series series = exporter.scrape();
  const auto metric = [&](const std::string& name) {
    const auto found = series.find(series_key(name, {{"device", device()}, {"cpu", cpu}}));
    return found == series.end() ? -1.0 : found->second;
  };
  EXPECT_EQ(metric("netif_rx_packets_total"), kCount);
  EXPECT_NE(object.find("\"packets_total\":" + std::to_string(kCount) +
                        ",\"bytes_total\":" + std::to_string(bytes) + "}"),
            std::string::npos)
      << object;
  EXPECT_EQ(metric("netif_rx_bytes_total"), bytes);
  EXPECT_EQ(top.out().rfind("{\"source\":" + std::string("\"") + url + "\"", 0), 0U);
}

// --device: only that device, and its queue matrix from the exporter's
// netif_rx_queue_packets_total; a veth records no RX queue, which top says.
TEST_F(TopCommandTest, FromAnExporterOneDeviceSaysWhatItsDriverRecords) {
  ExporterProcess exporter("poll_interval: 100ms\nper_cpu:\n  include: ['" + device() + "']\n");
  ASSERT_TRUE(exporter.wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                     << exporter.log();
  constexpr int kCount = 181;
  const std::string url = "http://127.0.0.1:" + std::to_string(exporter.port()) + "/metrics";
  TopProcess top({"top", "--once", "--duration=3s", "--from", url, "--device", device()});
  run_with_traffic(top, kCount);
  if (HasFatalFailure()) return;

  const std::string& out = top.out();
  EXPECT_EQ(out.rfind("device " + device() + " by CPU, RX queue and drop reason over ", 0), 0U)
      << out;
  EXPECT_NE(out.find("\n" + device() + ": " + std::to_string(kCount) + " packets"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("\nlo: "), std::string::npos) << "only the device asked for:\n" << out;
  // The exporter serves the queue family; the veth has no series in it.
  EXPECT_NE(out.find("\nRX queues: none: its driver records none"), std::string::npos) << out;
  EXPECT_EQ(out.find("RX queues: not shown"), std::string::npos) << out;
}

// By default a veth is not of the per-CPU class: top shows its totals, one row
// without a CPU, the same as /metrics.
TEST_F(TopCommandTest, FromAnExporterThatSumsTheDeviceShowsItsTotals) {
  ExporterProcess exporter("poll_interval: 100ms\n");
  ASSERT_TRUE(exporter.wait_ready()) << "the exporter did not become ready; its log says why:\n"
                                     << exporter.log();
  constexpr int kCount = 217;
  const int bytes = kCount * udp_skb_len(kPayloadBytes);
  const std::string url = "http://127.0.0.1:" + std::to_string(exporter.port()) + "/metrics";
  TopProcess top({"top", "--once", "--duration=3s", "--output=json", "--from", url});
  run_with_traffic(top, kCount);
  if (HasFatalFailure()) return;

  const std::string object = json_device(top.out(), device());
  ASSERT_FALSE(object.empty()) << device() << " missing from:\n" << top.out();
  EXPECT_NE(object.find("\"cpus\":[{\"cpu\":null,\"packets\":" + std::to_string(kCount) +
                        ",\"bytes\":" + std::to_string(bytes) + ","),
            std::string::npos)
      << object;
  const Series series = exporter.scrape();
  const auto found = series.find(series_key("netif_rx_packets_total", {{"device", device()}}));
  ASSERT_NE(found, series.end());
  EXPECT_EQ(found->second, kCount);
}

TEST_F(TopCommandTest, LiveViewInAPipeIsPlainAndSigintExitsZero) {
  TopProcess top({"top", "--interval=300ms"});
  ASSERT_TRUE(top.wait_for_stdout("packets per device and CPU over", kTimeoutMs))
      << "no table; stderr:\n"
      << top.err();
  ASSERT_TRUE(top.wait_for_stdout("\n\npackets per device and CPU over", kTimeoutMs))
      << "no second table; stderr:\n"
      << top.err();
  top.signal(SIGINT);
  EXPECT_EQ(top.wait(kTimeoutMs), 0) << top.err();
  EXPECT_FALSE(has_escape_codes(top.out())) << top.out();
  EXPECT_EQ(top.err(), "");
}

// The exit codes of docs/top.md: the live view ends on SIGINT with 0 (above); --once interrupted
// before its span ends prints no table and exits 130, like a shell's SIGINT.
TEST_F(TopCommandTest, OnceInterruptedPrintsNoTableAndExits130) {
  for (const int signal_number : {SIGINT, SIGTERM}) {
    TopProcess top({"top", "--once", "--duration=30s"});
    ASSERT_TRUE(top.wait_for_stderr("measuring for", kTimeoutMs)) << top.err();
    top.signal(signal_number);
    EXPECT_EQ(top.wait(kTimeoutMs), 130) << "signal " << signal_number << ": " << top.err();
    EXPECT_EQ(top.out(), "");
    EXPECT_NE(top.err().find("interrupted before the span ended"), std::string::npos) << top.err();
  }
}

TEST_F(TopCommandTest, LiveViewOnATerminalRedrawsAndRestoresTheCursor) {
  TopProcess top({"top", "--interval=300ms"}, TopProcess::Stdout::terminal);
  ASSERT_TRUE(top.wait_for_stdout("\x1b[H\x1b[Jpackets per device and CPU over", kTimeoutMs))
      << "no table; stderr:\n"
      << top.err() << "\nstdout:\n"
      << top.out();
  top.signal(SIGINT);
  EXPECT_EQ(top.wait(kTimeoutMs), 0) << top.err();
  const std::string& out = top.out();
  EXPECT_EQ(out.rfind("\x1b[?25l", 0), 0U) << "the cursor is hidden first";
  ASSERT_GE(out.size(), 6U);
  EXPECT_EQ(out.substr(out.size() - 6), "\x1b[?25h") << "and shown again at the end";
  // 72 columns, the terminal's width: no line is longer.
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (const char* code : {"\x1b[?25l", "\x1b[H\x1b[J", "\x1b[?25h"}) {
      if (line.rfind(code, 0) == 0) line = line.substr(std::string(code).size());
    }
    EXPECT_LE(line.size(), 72U) << line;
    start = end + 1;
  }
}

TEST_F(TopCommandTest, ErrorsAreOneLineAndNonZero) {
  const auto run = [](const std::vector<std::string>& args) {
    TopProcess top(args);
    const int code = top.wait(kTimeoutMs);
    EXPECT_EQ(top.out(), "");
    EXPECT_EQ(top.err().find('\n'), top.err().size() - 1) << "one line: " << top.err();
    return std::pair{code, top.err()};
  };
  const auto [bad_flag, bad_flag_message] = run({"top", "--bogus"});
  EXPECT_EQ(bad_flag, 2);
  EXPECT_NE(bad_flag_message.find("unknown flag '--bogus'"), std::string::npos);

  const std::string url = "http://127.0.0.1:" + std::to_string(free_port()) + "/metrics";
  const auto [unreachable, unreachable_message] = run({"top", "--once", "--from", url});
  EXPECT_EQ(unreachable, 1);
  EXPECT_NE(unreachable_message.find("Connection refused"), std::string::npos)
      << unreachable_message;

  const auto [bad_btf, bad_btf_message] =
      run({"top", "--once", "--bpf.btf-path=/nonexistent/vmlinux.btf"});
  EXPECT_EQ(bad_btf, 1);
  EXPECT_NE(bad_btf_message.find("/nonexistent/vmlinux.btf"), std::string::npos) << bad_btf_message;
}

}  // namespace
}  // namespace netif_rx::test
