#include "cli/cli.h"

#include <gtest/gtest.h>

#include "error_text.h"

namespace netif_rx {
namespace {

// The message of the CliError that parsing `args` throws, or "" if none.
std::string error_of(const std::vector<std::string>& args) {
  return test::error_text<CliError>([&] { parse_cli(args); });
}

TEST(Cli, Defaults) {
  const CliOptions options = parse_cli({});
  EXPECT_EQ(options.config_file, std::nullopt);
  EXPECT_EQ(options.listen_addresses, std::vector<std::string>{":19100"});
  EXPECT_EQ(options.telemetry_path, "/metrics");
  EXPECT_EQ(options.log_level, "info");
  EXPECT_EQ(options.log_format, "logfmt");
  EXPECT_EQ(options.btf_path, "/sys/kernel/btf/vmlinux");
  EXPECT_EQ(options.pin_path, "");  // not pinned unless asked
  EXPECT_FALSE(options.deprecated_keep_pins);
  EXPECT_FALSE(options.show_help);
  EXPECT_FALSE(options.show_version);
}

TEST(Cli, PinsTheProbeOnlyWhereAsked) {
  const CliOptions options = parse_cli({"--bpf.pin-path=/sys/fs/bpf/netif_rx_exporter"});
  EXPECT_EQ(options.command, Command::serve);
  EXPECT_EQ(options.pin_path, "/sys/fs/bpf/netif_rx_exporter");
  EXPECT_FALSE(options.fd_store);
  EXPECT_TRUE(parse_cli({"--bpf.fd-store"}).fd_store);
}

// --bpf.keep-pins is what a pin path does anyway: still accepted (older
// units and charts pass it), marked for the warning, with or without a path.
TEST(Cli, KeepPinsIsADeprecatedNoOp) {
  const CliOptions options =
      parse_cli({"--bpf.pin-path=/sys/fs/bpf/netif_rx_exporter", "--bpf.keep-pins"});
  EXPECT_EQ(options.pin_path, "/sys/fs/bpf/netif_rx_exporter");
  EXPECT_TRUE(options.deprecated_keep_pins);
  EXPECT_TRUE(parse_cli({"--bpf.keep-pins"}).deprecated_keep_pins);
  EXPECT_NE(usage_text().find("Deprecated, does nothing"), std::string::npos);
}

// Removing the pins is a command of its own, and needs the directory.
TEST(Cli, UnpinNeedsThePinPath) {
  const CliOptions options = parse_cli({"unpin", "--bpf.pin-path=/sys/fs/bpf/netif_rx_exporter"});
  EXPECT_EQ(options.command, Command::unpin);
  EXPECT_EQ(options.pin_path, "/sys/fs/bpf/netif_rx_exporter");
  EXPECT_EQ(parse_cli({"unpin", "--bpf.pin-path", "/sys/fs/bpf/x"}).pin_path, "/sys/fs/bpf/x");
  EXPECT_EQ(error_of({"unpin"}),
            "unpin needs --bpf.pin-path (the directory where the probe is pinned, such as "
            "/sys/fs/bpf/netif_rx_exporter)");
  EXPECT_NE(error_of({"unpin", "--bpf.pin-path=relative"}).find("must be an absolute path"),
            std::string::npos);
}

TEST(Cli, UsageSaysPinsAreKeptAndHowToRemoveThem) {
  const std::string usage = usage_text();
  EXPECT_NE(usage.find("netif_rx_exporter unpin --bpf.pin-path=DIR"), std::string::npos);
  EXPECT_NE(usage.find("Every stop"), std::string::npos);
  EXPECT_EQ(usage.find("a clean stop removes"), std::string::npos);
}

TEST(Cli, RejectsAnInvalidPinPath) {
  for (const std::string bad : {"relative/dir", "/", ""}) {
    EXPECT_NE(error_of({"--bpf.pin-path=" + bad}).find("must be an absolute path"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(error_of({"--bpf.pin-path=/" + std::string(300, 'x')}).find("at most 200 bytes"),
            std::string::npos);
}

TEST(Cli, TakesFlagEqualsValue) {
  const CliOptions options =
      parse_cli({"--config.file=/etc/x.yaml", "--web.listen-address=127.0.0.1:9",
                 "--web.telemetry-path=/stats", "--log.level=debug", "--log.format=json",
                 "--bpf.btf-path=/boot/vmlinux.btf"});
  EXPECT_EQ(options.config_file, "/etc/x.yaml");
  EXPECT_EQ(options.listen_addresses, std::vector<std::string>{"127.0.0.1:9"});
  EXPECT_EQ(options.telemetry_path, "/stats");
  EXPECT_EQ(options.log_level, "debug");
  EXPECT_EQ(options.log_format, "json");
  EXPECT_EQ(options.btf_path, "/boot/vmlinux.btf");
}

TEST(Cli, TakesFlagSpaceValue) {
  const CliOptions options = parse_cli({"--config.file", "/etc/x.yaml", "--web.listen-address",
                                        ":9", "--web.telemetry-path", "/stats", "--log.level",
                                        "warn", "--log.format", "json", "--bpf.btf-path", "/b"});
  EXPECT_EQ(options.config_file, "/etc/x.yaml");
  EXPECT_EQ(options.listen_addresses, std::vector<std::string>{":9"});
  EXPECT_EQ(options.telemetry_path, "/stats");
  EXPECT_EQ(options.log_level, "warn");
  EXPECT_EQ(options.log_format, "json");
  EXPECT_EQ(options.btf_path, "/b");
}

TEST(Cli, ValueMayContainEquals) {
  EXPECT_EQ(parse_cli({"--config.file=/tmp/a=b.yaml"}).config_file, "/tmp/a=b.yaml");
}

TEST(Cli, ListenAddressIsRepeatable) {
  const CliOptions options =
      parse_cli({"--web.listen-address=127.0.0.1:9100", "--web.listen-address", ":9200"});
  EXPECT_EQ(options.listen_addresses, (std::vector<std::string>{"127.0.0.1:9100", ":9200"}));
}

TEST(Cli, LastValueWinsForOtherFlags) {
  EXPECT_EQ(parse_cli({"--log.level=debug", "--log.level=error"}).log_level, "error");
}

TEST(Cli, AcceptsEveryLevelAndFormat) {
  for (const char* level : {"debug", "info", "warn", "error"}) {
    EXPECT_EQ(parse_cli({std::string("--log.level=") + level}).log_level, level);
  }
  for (const char* format : {"logfmt", "json"}) {
    EXPECT_EQ(parse_cli({std::string("--log.format=") + format}).log_format, format);
  }
}

TEST(Cli, HelpAndVersion) {
  EXPECT_TRUE(parse_cli({"--help"}).show_help);
  EXPECT_TRUE(parse_cli({"-h"}).show_help);
  EXPECT_FALSE(parse_cli({"--help"}).show_version);
  EXPECT_TRUE(parse_cli({"--version"}).show_version);
  EXPECT_FALSE(parse_cli({"--version"}).show_help);
}

TEST(Cli, RejectsAnUnknownFlag) {
  EXPECT_EQ(error_of({"--web.listen-addr=:1"}),
            "unknown flag '--web.listen-addr'; see --help for the flags");
  EXPECT_EQ(error_of({"--verbose"}), "unknown flag '--verbose'; see --help for the flags");
  EXPECT_EQ(error_of({"extra"}),
            "unknown command 'extra'; the commands are check, top and unpin (see --help)");
}

TEST(Cli, RejectsAMissingValue) {
  EXPECT_EQ(error_of({"--config.file"}),
            "flag --config.file needs a value, as in --config.file=VALUE");
  EXPECT_EQ(error_of({"--log.level=info", "--web.listen-address"}),
            "flag --web.listen-address needs a value, as in --web.listen-address=VALUE");
}

TEST(Cli, RejectsAnInvalidLogLevel) {
  EXPECT_EQ(error_of({"--log.level=trace"}),
            "--log.level: 'trace' is not one of debug, info, warn, error");
  EXPECT_EQ(error_of({"--log.level", "INFO"}),
            "--log.level: 'INFO' is not one of debug, info, warn, error");
  EXPECT_EQ(error_of({"--log.level="}), "--log.level: '' is not one of debug, info, warn, error");
}

TEST(Cli, RejectsAnInvalidLogFormat) {
  EXPECT_EQ(error_of({"--log.format=text"}), "--log.format: 'text' is not one of logfmt, json");
}

TEST(Cli, RejectsAnInvalidTelemetryPath) {
  for (const char* path : {"metrics", "/", ""}) {
    EXPECT_EQ(error_of({std::string("--web.telemetry-path=") + path}),
              std::string("--web.telemetry-path: '") + path +
                  "' must be an absolute path other than /, such as /metrics")
        << path;
  }
}

TEST(Cli, UsageNamesEveryFlag) {
  const std::string usage = usage_text();
  for (const char* flag : {"--help", "-h,", "--version", "--config.file", "--web.listen-address",
                           "--web.telemetry-path", "--log.level", "--log.format", "--bpf.btf-path",
                           "--bpf.pin-path", "--bpf.keep-pins"}) {
    EXPECT_NE(usage.find(flag), std::string::npos) << flag;
  }
  EXPECT_NE(usage.find(":19100"), std::string::npos);
}

TEST(Cli, UsageOffersIPv6ListenAddresses) {
  EXPECT_NE(usage_text().find("[IPV6]:PORT"), std::string::npos);
  EXPECT_NE(usage_text().find("[::]:PORT is dual-stack"), std::string::npos);
}

TEST(Cli, UsageLinesFitATerminal) {
  const std::string usage = usage_text();
  std::size_t start = 0;
  while (start < usage.size()) {
    const std::size_t end = usage.find('\n', start);
    const std::string line = usage.substr(start, end - start);
    EXPECT_LE(line.size(), 80U) << line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

}  // namespace
}  // namespace netif_rx
