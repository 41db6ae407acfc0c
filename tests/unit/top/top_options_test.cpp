#include "top/top_options.h"

#include <gtest/gtest.h>

#include "error_text.h"

namespace netif_rx {
namespace {

std::string error_of(const std::vector<std::string>& args) {
  return test::error_text<CliError>([&] { parse_top_options(args); });
}

TEST(TopOptions, Defaults) {
  const TopOptions options = parse_top_options({});
  EXPECT_FALSE(options.once);
  EXPECT_EQ(options.interval, Milliseconds(1000));
  EXPECT_EQ(options.duration, std::nullopt);
  EXPECT_EQ(options.once_span(), Milliseconds(1000));
  EXPECT_EQ(options.output, TopOutput::text);
  EXPECT_EQ(options.from, std::nullopt);
  EXPECT_EQ(options.config_file, std::nullopt);
  EXPECT_EQ(options.btf_path, "/sys/kernel/btf/vmlinux");
  EXPECT_FALSE(options.show_help);
}

TEST(TopOptions, OnceWithDurationAndJson) {
  const TopOptions options =
      parse_top_options({"--once", "--duration", "5s", "--output=json", "--interval=250ms"});
  EXPECT_TRUE(options.once);
  EXPECT_EQ(options.duration, Milliseconds(5000));
  EXPECT_EQ(options.once_span(), Milliseconds(5000));
  EXPECT_EQ(options.interval, Milliseconds(250));
  EXPECT_EQ(options.output, TopOutput::json);
}

TEST(TopOptions, OnceSpanDefaultsToTheInterval) {
  EXPECT_EQ(parse_top_options({"--once", "--interval=1m30s"}).once_span(), Milliseconds(90000));
}

TEST(TopOptions, FromConfigAndBtf) {
  const TopOptions from = parse_top_options({"--from", "http://127.0.0.1:19100/metrics"});
  EXPECT_EQ(from.from, "http://127.0.0.1:19100/metrics");
  const TopOptions local =
      parse_top_options({"--config.file=/etc/x.yaml", "--bpf.btf-path", "/boot/vmlinux.btf"});
  EXPECT_EQ(local.config_file, "/etc/x.yaml");
  EXPECT_EQ(local.btf_path, "/boot/vmlinux.btf");
}

TEST(TopOptions, Device) {
  EXPECT_EQ(parse_top_options({}).device, std::nullopt);
  EXPECT_EQ(parse_top_options({"--device=eth0"}).device, "eth0");
  EXPECT_EQ(parse_top_options({"--device", "ens1f0np0", "--once"}).device, "ens1f0np0");
  EXPECT_EQ(error_of({"--device="}),
            "--device: '' is not a device name, as the exporter's device label has it");
  EXPECT_EQ(error_of({"--device=\x1b[2J" + std::string(300, 'x')}).substr(0, 30),
            "--device: '\\x1b[2Jxxxxxxxxxxxx");
}

TEST(TopOptions, Help) {
  EXPECT_TRUE(parse_top_options({"--help"}).show_help);
  EXPECT_TRUE(parse_top_options({"-h"}).show_help);
  EXPECT_NE(top_usage_text().find("--once"), std::string::npos);
}

TEST(TopOptions, RejectsBadFlagsWithOneLine) {
  EXPECT_EQ(error_of({"--bogus"}), "top: unknown flag '--bogus'; see netif_rx_exporter top --help");
  EXPECT_EQ(error_of({"--interval"}), "flag --interval needs a value, as in --interval=VALUE");
  EXPECT_EQ(error_of({"--interval=fast"}),
            "--interval: 'fast' is not a duration; write it as Prometheus does: 500ms, 2s, 1m30s");
  EXPECT_EQ(error_of({"--interval=10ms"}),
            "--interval: 10ms is out of range; it must be from 100ms to 1h");
  EXPECT_EQ(error_of({"--once", "--duration=2h"}),
            "--duration: 2h is out of range; it must be from 100ms to 1h");
  EXPECT_EQ(error_of({"--output=yaml"}), "--output: 'yaml' is not one of text, json");
  EXPECT_EQ(error_of({"--from=ftp://host:19100/metrics"}),
            "--from: 'ftp://host:19100/metrics' is not an http:// or https:// URL; give a running "
            "exporter's metrics URL, such as http://localhost:19100/metrics (credentials go in "
            "--from.user)");
  EXPECT_EQ(error_of({"--from.user=u"}), "the --from.* flags need --from=URL");
  EXPECT_EQ(error_of({"--from=http://h/m", "--from.ca-file=ca.pem"}),
            "--from.ca-file is for an https:// URL; --from is http://h/m");
  EXPECT_EQ(error_of({"--from=http://h/m", "--from.user=a:b"}),
            "--from.user: a basic-auth user name cannot contain ':'");
  EXPECT_EQ(error_of({"--from=http://h/m", "--from.max-body=1kB"}),
            "--from.max-body: '1kB' is not a size from 4KiB to 1GiB, e.g. 8MiB");
  EXPECT_NE(error_of({"--duration=5s"}).find("add --once"), std::string::npos);
  EXPECT_NE(error_of({"--from=http://h/metrics", "--config.file=x.yaml"}).find("loads none"),
            std::string::npos);
}

TEST(TopOptions, FromFlags) {
  const TopOptions options =
      parse_top_options({"--from=https://h:1/m", "--from.ca-file=ca.pem", "--from.user=prom",
                         "--from.password-file=pw", "--from.max-body=2MiB", "--from.timeout=2s"});
  EXPECT_EQ(options.from_options.ca_file, "ca.pem");
  EXPECT_EQ(options.from_options.user, "prom");
  EXPECT_EQ(options.from_options.password_file, "pw");
  EXPECT_EQ(options.from_options.max_body_bytes, 2U * 1024 * 1024);
  EXPECT_EQ(options.from_options.timeout, Milliseconds(2000));
  EXPECT_EQ(parse_top_options({"--from=http://h/m"}).from_options.max_body_bytes, 8U << 20);
}

TEST(TopOptions, ByteSizes) {
  EXPECT_EQ(parse_byte_size("4096"), 4096U);
  EXPECT_EQ(parse_byte_size("64kB"), 64000U);
  EXPECT_EQ(parse_byte_size("1GiB"), 1U << 30);
  for (const char* bad : {"", "MiB", "1 MiB", "-1", "1mib", "99999999999999GiB", "1.5MiB"}) {
    EXPECT_EQ(parse_byte_size(bad), std::nullopt) << bad;
  }
}

TEST(TopOptions, ErrorsAreOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--bogus"}, {"--duration=5s"}, {"--from=ftp://x"}, {"--output"}}) {
    const std::string message = error_of(args);
    EXPECT_FALSE(message.empty());
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace netif_rx
