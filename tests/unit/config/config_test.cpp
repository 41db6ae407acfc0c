#include "config/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "error_text.h"
#include "unprivileged.h"

namespace netif_rx {
namespace {

using std::chrono::milliseconds;

// One line per field, so that a mismatch shows which field differs.
std::string describe(const Config& config) {
  std::ostringstream out;
  out << "poll_interval=" << format_duration(config.poll_interval) << "\n"
      << "namespaces=" << to_string(config.namespaces) << "\n"
      << "per_cpu=" << to_string(config.per_cpu.devices) << " " << config.per_cpu.include.size()
      << "\n"
      << "max_series=" << config.max_series << "\n"
      << "max_devices=" << config.max_devices << "\n"
      << "attach=" << to_string(config.attach) << "\n"
      << "stale_after=" << format_duration(config.stale_after) << "\n"
      << "bpf_stats.mode=" << to_string(config.bpf_stats.mode) << "\n"
      << "bpf_stats.window=" << format_duration(config.bpf_stats.window) << "\n"
      << "bpf_stats.period=" << format_duration(config.bpf_stats.period) << "\n";
  const AttributionConfig& a = config.attribution;
  out << "attribution.enabled=" << a.enabled << "\n"
      << "attribution.refresh_interval=" << format_duration(a.refresh_interval) << "\n"
      << "attribution.proc_root=" << a.proc_root << "\n"
      << "attribution.pod_logs_root=" << a.pod_logs_root << "\n"
      << "attribution.processes=" << a.processes << "\n"
      << "attribution.max_namespaces=" << a.max_namespaces << "\n"
      << "attribution.max_processes=" << a.max_processes << "\n"
      << "attribution.copy_labels=" << a.copy_labels << "\n";
  for (const auto& root : a.bundle_roots) out << "attribution.bundle_roots=" << root << "\n";
  for (const auto& re : config.devices.include) out << "devices.include=" << re << "\n";
  for (const auto& re : config.devices.exclude) out << "devices.exclude=" << re << "\n";
  return out.str();
}

// The message of the ConfigError that parsing `text` throws, or "" if none.
std::string error_of(std::string_view text, const std::string& source = "test.yaml") {
  return test::error_text<ConfigError>([&] { parse_config(text, source); });
}

constexpr const char* kValidKeys =
    "valid keys are attach, attribution, bpf_stats, devices, max_devices, max_series, "
    "namespaces, netns_block_slots, netns_blocks, per_cpu, poll_interval, stale_after";

TEST(Config, DefaultsAreDocumented) {
  const Config config;
  EXPECT_EQ(config.poll_interval, milliseconds(1000));
  EXPECT_EQ(config.namespaces, NamespaceMode::host);
  EXPECT_EQ(config.per_cpu.devices, PerCpuDevices::physical);
  EXPECT_EQ(config.max_devices, static_cast<std::uint32_t>(NETIF_RX_DEFAULT_MAX_DEVICES));
  EXPECT_EQ(config.attach, AttachMode::automatic);
}

TEST(Config, EmptyTextMeansDefaults) {
  EXPECT_EQ(describe(parse_config("", "empty.yaml")), describe(Config{}));
  EXPECT_EQ(describe(parse_config("\n\n", "blank.yaml")), describe(Config{}));
  EXPECT_EQ(describe(parse_config("# only a comment\n", "comment.yaml")), describe(Config{}));
  EXPECT_EQ(describe(parse_config("{}", "flow.yaml")), describe(Config{}));
}

TEST(Config, ParsesEveryKey) {
  const Config config = parse_config(
      "poll_interval: 250ms\n"
      "namespaces: all\n"
      "per_cpu: false\n"
      "max_devices: 65536\n"
      "attach: tracepoint\n"
      "stale_after: 5m\n"
      "devices:\n"
      "  include: ['eth.*', 'veth[0-9a-f]+']\n"
      "  exclude: [lo]\n"
      "bpf_stats:\n"
      "  mode: always\n"
      "  window: 5s\n"
      "  period: 2m\n",
      "full.yaml");
  EXPECT_EQ(config.poll_interval, milliseconds(250));
  EXPECT_EQ(config.namespaces, NamespaceMode::all);
  EXPECT_EQ(config.per_cpu.devices, PerCpuDevices::none);
  EXPECT_EQ(config.max_devices, 65536U);
  EXPECT_EQ(config.attach, AttachMode::tracepoint);
  EXPECT_EQ(config.stale_after, milliseconds(300000));
  EXPECT_EQ(config.devices.include, (std::vector<std::string>{"eth.*", "veth[0-9a-f]+"}));
  EXPECT_EQ(config.devices.exclude, (std::vector<std::string>{"lo"}));
  EXPECT_EQ(config.bpf_stats.mode, BpfStatsMode::always);
  EXPECT_EQ(config.bpf_stats.window, milliseconds(5000));
  EXPECT_EQ(config.bpf_stats.period, milliseconds(120000));
}

TEST(Config, RejectsNulBytes) {
  // Found by fuzzing: yaml-cpp 0.7 never returns from a NUL byte.
  EXPECT_EQ(error_of(std::string_view("poll_interval: 1s\n\0x", 20)),
            "test.yaml: a NUL byte at offset 18; this is not a YAML text file");
  // Found by fuzzing: yaml-cpp 0.7's LoadAll yields empty documents without end.
  EXPECT_EQ(error_of("&olpo,ll"),
            "test.yaml: invalid YAML: more than 16 documents, or text the YAML parser cannot "
            "read");
}

TEST(Config, RejectsBadNestedKeys) {
  EXPECT_EQ(error_of("devices:\n  includes: [eth0]\n"),
            "test.yaml:2:3: key 'devices.includes': unknown key; valid keys are exclude, include");
  EXPECT_EQ(error_of("devices: eth0\n"),
            "test.yaml:1:10: key 'devices': expected a mapping of keys to values");
  EXPECT_EQ(error_of("devices:\n  include: eth0\n"),
            "test.yaml:2:12: key 'devices.include': expected a list of regular expressions");
  EXPECT_EQ(error_of("devices:\n  exclude: ['veth(']\n"),
            "test.yaml:2:13: key 'devices.exclude': 'veth(' is not a valid regular expression: "
            "Mismatched '(' and ')' in regular expression");
  EXPECT_EQ(error_of("bpf_stats:\n  mode: sometimes\n"),
            "test.yaml:2:9: key 'bpf_stats.mode': 'sometimes' is not valid; expected sampled or "
            "always or off");
  EXPECT_EQ(error_of("bpf_stats:\n  window: 1m\n  period: 1m\n"),
            "test.yaml:1:1: key 'bpf_stats': window (1m) must be shorter than period (1m)");
  EXPECT_EQ(error_of("stale_after: 10ms\n"),
            "test.yaml:1:14: key 'stale_after': 10ms is out of range; must be between 1s and 1w");
}

TEST(Config, KeysNotGivenKeepTheirDefaults) {
  Config expected;
  expected.namespaces = NamespaceMode::all;
  EXPECT_EQ(describe(parse_config("namespaces: all\n", "one.yaml")), describe(expected));
}

TEST(Config, AcceptsEveryChoice) {
  EXPECT_EQ(parse_config("namespaces: host", "t").namespaces, NamespaceMode::host);
  EXPECT_EQ(parse_config("namespaces: all", "t").namespaces, NamespaceMode::all);
  EXPECT_EQ(parse_config("attach: auto", "t").attach, AttachMode::automatic);
  EXPECT_EQ(parse_config("attach: tp_btf", "t").attach, AttachMode::tp_btf);
  EXPECT_EQ(parse_config("attach: tracepoint", "t").attach, AttachMode::tracepoint);
  for (const char* text : {"true", "True", "TRUE"}) {
    EXPECT_EQ(parse_config(std::string("per_cpu: ") + text, "t").per_cpu.devices,
              PerCpuDevices::all)
        << text;
  }
  for (const char* text : {"false", "False", "FALSE"}) {
    EXPECT_EQ(parse_config(std::string("per_cpu: ") + text, "t").per_cpu.devices,
              PerCpuDevices::none)
        << text;
  }
}

TEST(Config, PerCpuDevicesAndInclude) {
  const Config config = parse_config(
      "per_cpu:\n  devices: none\n  include: ['eth[0-9]+', 'bond0']\nmax_series: 5000\n", "t");
  EXPECT_EQ(config.per_cpu.devices, PerCpuDevices::none);
  EXPECT_EQ(config.per_cpu.include, (std::vector<std::string>{"eth[0-9]+", "bond0"}));
  EXPECT_EQ(config.max_series, 5000U);
  EXPECT_TRUE(config.warnings.empty());
  EXPECT_EQ(parse_config("per_cpu: {devices: all}", "t").per_cpu.devices, PerCpuDevices::all);
  EXPECT_EQ(parse_config("per_cpu: {devices: physical}", "t").per_cpu.devices,
            PerCpuDevices::physical);
  EXPECT_EQ(parse_config("per_cpu: {include: ['x']}", "t").per_cpu.devices,
            PerCpuDevices::physical);
  EXPECT_EQ(error_of("per_cpu:\n  devices: some\n"),
            "test.yaml:2:12: key 'per_cpu.devices': 'some' is not valid; expected physical or all "
            "or none");
  EXPECT_EQ(error_of("per_cpu:\n  include: ['(']\n"),
            "test.yaml:2:13: key 'per_cpu.include': '(' is not a valid regular expression: " +
                std::string(std::regex_error(std::regex_constants::error_paren).what()));
  EXPECT_EQ(error_of("max_series: 99\n"),
            "test.yaml:1:13: key 'max_series': 99 is out of range; must be between 100 and "
            "10000000");
}

// The boolean of before 1.0: true = every device per CPU, false = none; a warning.
TEST(Config, PerCpuBooleanIsADeprecatedAlias) {
  const Config all = parse_config("per_cpu: true\n", "f.yaml");
  EXPECT_EQ(all.per_cpu.devices, PerCpuDevices::all);
  ASSERT_EQ(all.warnings.size(), 1U);
  EXPECT_EQ(all.warnings[0], "f.yaml: per_cpu: true is deprecated; write per_cpu: {devices: all}");
  const Config none = parse_config("per_cpu: false\n", "f.yaml");
  EXPECT_EQ(none.per_cpu.devices, PerCpuDevices::none);
  ASSERT_EQ(none.warnings.size(), 1U);
}

TEST(Config, AcceptsTheBoundsOfEveryRange) {
  EXPECT_EQ(parse_config("max_devices: 1", "t").max_devices, 1U);
  EXPECT_EQ(parse_config("max_devices: 1048576", "t").max_devices, kMaxDevicesLimit);
  EXPECT_EQ(parse_config("netns_blocks: 0", "t").netns_blocks, 0U);
  EXPECT_EQ(parse_config("netns_blocks: 256\nnetns_block_slots: 4096", "t").netns_block_slots,
            4096U);
  EXPECT_EQ(parse_config("", "t").netns_blocks,
            static_cast<std::uint32_t>(NETIF_RX_DEFAULT_NETNS_BLOCKS));
  EXPECT_EQ(parse_config("poll_interval: 100ms", "t").poll_interval, kMinPollInterval);
  EXPECT_EQ(parse_config("poll_interval: 1h", "t").poll_interval, kMaxPollInterval);
  EXPECT_EQ(parse_config("poll_interval: 1m30s", "t").poll_interval, milliseconds(90000));
}

TEST(Config, NamesItsEnumsAsTheFileDoes) {
  EXPECT_EQ(to_string(NamespaceMode::host), "host");
  EXPECT_EQ(to_string(NamespaceMode::all), "all");
  EXPECT_EQ(to_string(AttachMode::automatic), "auto");
  EXPECT_EQ(to_string(AttachMode::tp_btf), "tp_btf");
  EXPECT_EQ(to_string(AttachMode::tracepoint), "tracepoint");
}

TEST(Config, RejectsAnUnknownKey) {
  EXPECT_EQ(error_of("per_cpu: true\npoll_intervall: 1s\n"),
            std::string("test.yaml:2:1: key 'poll_intervall': unknown key; ") + kValidKeys);
}

TEST(Config, RejectsAKeyThatIsNotAString) {
  EXPECT_EQ(error_of("? [per_cpu]\n: true\n"),
            std::string("test.yaml:1:3: unknown key; ") + kValidKeys);
}

TEST(Config, RejectsAWrongType) {
  EXPECT_EQ(error_of("poll_interval: [1s, 2s]\n"),
            "test.yaml:1:16: key 'poll_interval': expected a duration such as 500ms, 1s or 1m");
  EXPECT_EQ(error_of("namespaces:\n  host: true\n"),
            "test.yaml:2:3: key 'namespaces': expected a string");
  EXPECT_NE(error_of("netns_blocks: 4096\nnetns_block_slots: 4096\n")
                .find("netns_blocks x netns_block_slots is 16777216 slots; at most 1048576"),
            std::string::npos);
  EXPECT_NE(error_of("netns_block_slots: 0\n").find("netns_block_slots"), std::string::npos);
  EXPECT_EQ(error_of("max_devices: [1]\n"),
            "test.yaml:1:14: key 'max_devices': expected an integer");
  EXPECT_EQ(error_of("per_cpu: {a: b}\n"),
            "test.yaml:1:11: key 'per_cpu.a': unknown key; valid keys are devices, include");
  EXPECT_EQ(error_of("per_cpu: [a]\n"),
            "test.yaml:1:10: key 'per_cpu': expected a mapping of keys to values");
}

// The empty value's own mark is where the parser went next (the next line):
// the message points at the key instead.
TEST(Config, RejectsAMissingValue) {
  EXPECT_EQ(error_of("per_cpu: true\npoll_interval:\nmax_devices: 10\n"),
            "test.yaml:2:1: key 'poll_interval': has no value; expected a duration such as 500ms, "
            "1s or 1m");
  EXPECT_EQ(error_of("per_cpu:"),
            "test.yaml:1:1: key 'per_cpu': expected a mapping of keys to values");
  EXPECT_EQ(error_of("  namespaces: ~\n"),
            "test.yaml:1:3: key 'namespaces': has no value; expected a string");
  EXPECT_EQ(error_of("max_devices: null\n"),
            "test.yaml:1:1: key 'max_devices': has no value; expected an integer");
}

TEST(Config, RejectsANonBooleanPerCpu) {
  EXPECT_EQ(error_of("per_cpu: yes\n"),
            "test.yaml:1:10: key 'per_cpu': 'yes' is not a boolean; expected true or false");
  EXPECT_EQ(error_of("per_cpu: 1\n"),
            "test.yaml:1:10: key 'per_cpu': '1' is not a boolean; expected true or false");
}

TEST(Config, RejectsMaxDevicesOutOfRange) {
  EXPECT_EQ(error_of("max_devices: 0\n"),
            "test.yaml:1:14: key 'max_devices': 0 is out of range; must be between 1 and 1048576");
  EXPECT_EQ(error_of("max_devices: 1048577\n"),
            "test.yaml:1:14: key 'max_devices': 1048577 is out of range; must be between 1 and "
            "1048576");
  EXPECT_EQ(error_of("max_devices: 18446744073709551616\n"),
            "test.yaml:1:14: key 'max_devices': '18446744073709551616' is not a whole number");
}

TEST(Config, RejectsMaxDevicesThatIsNotAWholeNumber) {
  for (const char* text : {"-1", "1.5", "1e3", "0x10", "ten", "4096 "}) {
    const std::string yaml = std::string("max_devices: '") + text + "'\n";
    EXPECT_EQ(error_of(yaml), std::string("test.yaml:1:14: key 'max_devices': '") + text +
                                  "' is not a whole number")
        << yaml;
  }
}

TEST(Config, RejectsPollIntervalOutOfRange) {
  EXPECT_EQ(error_of("poll_interval: 99ms\n"),
            "test.yaml:1:16: key 'poll_interval': 99ms is out of range; must be between 100ms "
            "and 1h");
  EXPECT_EQ(error_of("poll_interval: 1h1ms\n"),
            "test.yaml:1:16: key 'poll_interval': 1h1ms is out of range; must be between 100ms "
            "and 1h");
  EXPECT_EQ(error_of("poll_interval: 0s\n"),
            "test.yaml:1:16: key 'poll_interval': 0s is out of range; must be between 100ms "
            "and 1h");
}

TEST(Config, RejectsAPollIntervalThatIsNotADuration) {
  EXPECT_EQ(error_of("poll_interval: 1.5s\n"),
            "test.yaml:1:16: key 'poll_interval': '1.5s' is not a duration; write it as "
            "Prometheus does: 500ms, 1s, 1m");
  EXPECT_EQ(error_of("poll_interval: 1000\n"),
            "test.yaml:1:16: key 'poll_interval': '1000' is not a duration; write it as "
            "Prometheus does: 500ms, 1s, 1m");
}

TEST(Config, RejectsABadChoice) {
  EXPECT_EQ(error_of("namespaces: pods\n"),
            "test.yaml:1:13: key 'namespaces': 'pods' is not valid; expected host or all");
  EXPECT_EQ(error_of("attach: kprobe\n"),
            "test.yaml:1:9: key 'attach': 'kprobe' is not valid; expected auto or tp_btf or "
            "tracepoint");
}

TEST(Config, RejectsADuplicateKey) {
  EXPECT_EQ(error_of("per_cpu: true\nmax_devices: 10\nper_cpu: false\n"),
            "test.yaml:3:1: key 'per_cpu': given twice");
}

TEST(Config, RejectsInvalidYaml) {
  EXPECT_EQ(error_of("poll_interval: [1s\n"),
            "test.yaml:2:1: invalid YAML: end of sequence flow not found");
  EXPECT_EQ(error_of("per_cpu: true\n  max_devices: 10\n"),
            "test.yaml:2:14: invalid YAML: illegal map value");
}

// YAML::Load reads only the first document: a second one would be ignored.
TEST(Config, RejectsASecondDocument) {
  EXPECT_EQ(error_of("per_cpu: false\n---\nper_cpu: true\n"),
            "test.yaml:3:1: a second YAML document; the configuration is one mapping of keys to "
            "values");
  EXPECT_EQ(error_of("---\n---\nper_cpu: false\n---\n# x\nmax_devices: 1\n"),
            "test.yaml:6:1: a second YAML document; the configuration is one mapping of keys to "
            "values");
}

TEST(Config, AcceptsOneDocumentAmongEmptyOnes) {
  EXPECT_EQ(parse_config("---\nper_cpu: false\n...\n", "t").per_cpu.devices, PerCpuDevices::none);
  EXPECT_EQ(parse_config("---\nper_cpu: false\n---\n", "t").per_cpu.devices, PerCpuDevices::none);
  EXPECT_EQ(parse_config("---\n---\nper_cpu: false\n", "t").per_cpu.devices, PerCpuDevices::none);
  EXPECT_EQ(describe(parse_config("---\n", "t")), describe(Config{}));
  EXPECT_EQ(describe(parse_config("---\n---\n", "t")), describe(Config{}));
}

TEST(Config, RejectsATopLevelThatIsNotAMapping) {
  EXPECT_EQ(error_of("- poll_interval: 1s\n"),
            "test.yaml:1:1: expected a mapping of keys to values");
  EXPECT_EQ(error_of("poll_interval\n"), "test.yaml:1:1: expected a mapping of keys to values");
}

TEST(Config, NamesTheSourceInEveryMessage) {
  EXPECT_EQ(error_of("max_devices: 0\n", "/etc/netif_rx_exporter/netif_rx_exporter.yaml"),
            "/etc/netif_rx_exporter/netif_rx_exporter.yaml:1:14: key 'max_devices': 0 is out of "
            "range; must be between 1 and 1048576");
}

TEST(Config, MessagesAreOneLine) {
  for (const char* text :
       {"poll_interval: [1s\n", "foo: 1\n", "- a\n", "per_cpu: maybe\n", "a: b: c\n"}) {
    const std::string message = error_of(text);
    EXPECT_FALSE(message.empty()) << text;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("netif_rx_config_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = directory_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  std::filesystem::path directory_;
};

TEST_F(ConfigFile, LoadsAFile) {
  const std::string path = write("ok.yaml", "poll_interval: 5s\nper_cpu: false\n");
  const Config config = load_config_file(path);
  EXPECT_EQ(config.poll_interval, milliseconds(5000));
  EXPECT_EQ(config.per_cpu.devices, PerCpuDevices::none);
}

TEST_F(ConfigFile, NamesTheFileInParseErrors) {
  const std::string path = write("bad.yaml", "\nmax_devices: 0\n");
  try {
    load_config_file(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ":2:14: key 'max_devices': 0 is out of range; must be between 1 and 1048576");
  }
}

TEST_F(ConfigFile, RejectsAMissingFile) {
  const std::string path = (directory_ / "missing.yaml").string();
  try {
    load_config_file(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path +
                                         ": cannot read the configuration file: No such file or "
                                         "directory; check --config.file");
  }
}

TEST_F(ConfigFile, RejectsAnUnreadableFile) {
  const std::string path = write("secret.yaml", "per_cpu: false\n");
  std::filesystem::permissions(path, std::filesystem::perms::none);
  const std::string error = test::as_unprivileged_user([&]() -> std::string {
    try {
      load_config_file(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  });
  EXPECT_EQ(error,
            path + ": cannot read the configuration file: Permission denied; check --config.file");
}

TEST_F(ConfigFile, RejectsADirectory) {
  // Opening a directory succeeds; reading it fails (EISDIR). It must not be
  // taken for an empty file, which would silently mean the defaults.
  const std::string path = directory_.string();
  try {
    load_config_file(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": cannot read the configuration file: Is a directory; check --config.file");
  }
}

TEST_F(ConfigFile, RejectsAFileThatNeverEnds) {
  try {
    load_config_file("/dev/zero");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/zero: cannot read the configuration file: it is larger than 1 MiB; check "
              "--config.file");
  }
}

// The shipped, documented file states every default: it must say what the
// code does, so that documentation and defaults cannot drift apart.
TEST(ShippedConfig, EqualsTheEmbeddedDefaults) {
  const std::string path = NETIF_RX_TEST_DATA_DIR "/../../../config/netif_rx_exporter.yaml";
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  EXPECT_EQ(describe(load_config_file(path)), describe(Config{}));
}

// Every key of the shipped file is set, not commented out, so that the
// comparison above covers all of them.
TEST(ShippedConfig, SetsEveryKey) {
  const std::string path = NETIF_RX_TEST_DATA_DIR "/../../../config/netif_rx_exporter.yaml";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::set<std::string> keys;
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (line.empty() || line[0] == '#' || line[0] == ' ' || colon == std::string::npos) continue;
    keys.insert(line.substr(0, colon));
  }
  EXPECT_EQ(keys,
            (std::set<std::string>{"attach", "attribution", "bpf_stats", "devices", "max_devices",
                                   "max_series", "namespaces", "netns_block_slots", "netns_blocks",
                                   "per_cpu", "poll_interval", "stale_after"}));
}

TEST(Config, ReadsTheAttributionKeys) {
  const Config config = parse_config(
      "attribution:\n"
      "  enabled: false\n"
      "  refresh_interval: 30s\n"
      "  bundle_roots: [/fake/k8s.io, /fake/crio]\n"
      "  proc_root: /host/proc\n"
      "  pod_logs_root: /host/var/log/pods\n"
      "  processes: false\n"
      "  max_namespaces: 10\n"
      "  max_processes: 100\n"
      "  copy_labels: true\n",
      "test.yaml");
  const AttributionConfig& a = config.attribution;
  EXPECT_FALSE(a.enabled);
  EXPECT_EQ(a.refresh_interval, milliseconds(30000));
  EXPECT_EQ(a.bundle_roots, (std::vector<std::string>{"/fake/k8s.io", "/fake/crio"}));
  EXPECT_EQ(a.proc_root, "/host/proc");
  EXPECT_EQ(a.pod_logs_root, "/host/var/log/pods");
  EXPECT_FALSE(a.processes);
  EXPECT_EQ(a.max_namespaces, 10U);
  EXPECT_EQ(a.max_processes, 100U);
  EXPECT_TRUE(a.copy_labels);
  EXPECT_EQ(parse_config("attribution:\n  bundle_roots: []\n", "t").attribution.bundle_roots,
            std::vector<std::string>{});
}

TEST(Config, RejectsBadAttributionKeys) {
  EXPECT_EQ(error_of("attribution:\n  refresh_interval: 1s\n"),
            "test.yaml:2:21: key 'attribution.refresh_interval': 1s is out of range; must be "
            "between 2s and 1h");
  EXPECT_EQ(error_of("attribution:\n  proc_root: proc\n"),
            "test.yaml:2:14: key 'attribution.proc_root': 'proc' is not an absolute path");
  EXPECT_EQ(error_of("attribution:\n  bundle_roots: /run\n"),
            "test.yaml:2:17: key 'attribution.bundle_roots': expected a list of paths");
  EXPECT_EQ(error_of("attribution:\n  max_namespaces: 0\n"),
            "test.yaml:2:19: key 'attribution.max_namespaces': 0 is out of range; must be "
            "between 1 and 1048576");
  EXPECT_EQ(error_of("attribution:\n  pods: true\n"),
            "test.yaml:2:3: key 'attribution.pods': unknown key; valid keys are bundle_roots, "
            "copy_labels, enabled, machines_root, max_namespaces, max_processes, pod_logs_root, "
            "proc_root, processes, refresh_interval");
  EXPECT_EQ(error_of("attribution: on\n"),
            "test.yaml:1:14: key 'attribution': expected a mapping of keys to values");
}

}  // namespace
}  // namespace netif_rx
