// Command-line flags, Prometheus style: --flag=value or --flag value.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli_error.h"

namespace netif_rx {

inline constexpr const char* kDefaultListenAddress = ":19100";
inline constexpr const char* kDefaultTelemetryPath = "/metrics";
inline constexpr const char* kDefaultBtfPath = "/sys/kernel/btf/vmlinux";

enum class Command {
  serve,  // the daemon (no command word)
  check,  // preflight: what this machine lacks to run the exporter
  top,    // the terminal view; its own flags are in command_args
  unpin,  // removes the probe pinned at --bpf.pin-path: it detaches
};

struct CliOptions {
  Command command = Command::serve;
  // Everything after "top", for the terminal view's own parser.
  std::vector<std::string> command_args;
  std::optional<std::string> config_file;
  std::optional<std::string> web_config_file;
  std::vector<std::string> listen_addresses;  // defaults to {kDefaultListenAddress}
  bool systemd_socket = false;                // --web.systemd-socket: systemd's sockets instead
  std::string telemetry_path = kDefaultTelemetryPath;
  std::string log_level = "info";
  std::string log_format = "logfmt";
  std::string btf_path = kDefaultBtfPath;
  // --bpf.pin-path: a directory on a BPF filesystem where the probe is
  // pinned across restarts (kept on every stop; `unpin` removes it); empty:
  // not pinned.
  std::string pin_path;
  // --bpf.keep-pins, deprecated: the pins are kept anyway. Accepted so that
  // older units and charts still start, with a warning.
  bool deprecated_keep_pins = false;
  // --bpf.fd-store: the probe kept in systemd's file-descriptor store.
  bool fd_store = false;
  bool show_version = false;
  bool show_help = false;
};

// Parses argv (without argv[0]). Throws CliError.
CliOptions parse_cli(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace netif_rx
