// The flags of `netif_rx_exporter top` (everything after the word "top").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli.h"
#include "util/duration.h"

namespace netif_rx {

enum class TopOutput { text, json };

// How top reads a running exporter (--from.* flags).
struct TopFromOptions {
  std::string ca_file;                       // https: the CA to trust
  std::optional<std::string> user;           // basic auth
  std::optional<std::string> password_file;  // else $NETIF_RX_TOP_PASSWORD
  std::size_t max_body_bytes = 8 * 1024 * 1024;
  Milliseconds timeout{5000};
};

struct TopOptions {
  // One table for `duration`, then exit; otherwise refresh every `interval`
  // until interrupted.
  bool once = false;
  Milliseconds interval{1000};
  // The span of the --once table; defaults to `interval`.
  std::optional<Milliseconds> duration;
  TopOutput output = TopOutput::text;
  // One device's view (--device): its CPUs, its RX queue -> CPU matrix and
  // its drops by reason; unset: every device's CPUs.
  std::optional<std::string> device;
  // A running exporter's metrics URL (http:// or https://); unset: load the probe.
  std::optional<std::string> from;
  TopFromOptions from_options;
  // Configuration of the probe that top loads (not with --from).
  std::optional<std::string> config_file;
  std::string btf_path = kDefaultBtfPath;
  bool show_help = false;

  // The span between the two readings of the --once table.
  Milliseconds once_span() const { return duration.value_or(interval); }
};

inline constexpr Milliseconds kMinTopInterval{100};
inline constexpr Milliseconds kMaxTopInterval{3600 * 1000};
inline constexpr std::size_t kMinTopBodyLimit = 4 * 1024;
inline constexpr std::size_t kMaxTopBodyLimit = 1024 * 1024 * 1024;

// "8MiB", "512KiB", "64kB", "1048576": a byte count with an optional unit
// (B, kB, MB, GB, KiB, MiB, GiB); nullopt when it isn't one or overflows.
std::optional<std::size_t> parse_byte_size(std::string_view text);

// Parses the arguments after "top". Throws CliError with one line.
TopOptions parse_top_options(const std::vector<std::string>& args);

std::string top_usage_text();

}  // namespace netif_rx
