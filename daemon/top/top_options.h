// The flags of `netif_rx_exporter top` (everything after the word "top").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/cli.h"
#include "util/duration.h"

namespace netif_rx {

enum class TopOutput { text, json };

struct TopOptions {
  // One table for `duration`, then exit; otherwise refresh every `interval`
  // until interrupted.
  bool once = false;
  Milliseconds interval{1000};
  // The span of the --once table; defaults to `interval`.
  std::optional<Milliseconds> duration;
  TopOutput output = TopOutput::text;
  // A running exporter's metrics URL (http:// only); unset: load the probe.
  std::optional<std::string> from;
  // Configuration of the probe that top loads (not with --from).
  std::optional<std::string> config_file;
  std::string btf_path = kDefaultBtfPath;
  bool show_help = false;

  // The span between the two readings of the --once table.
  Milliseconds once_span() const { return duration.value_or(interval); }
};

inline constexpr Milliseconds kMinTopInterval{100};
inline constexpr Milliseconds kMaxTopInterval{3600 * 1000};

// Parses the arguments after "top". Throws CliError with one line.
TopOptions parse_top_options(const std::vector<std::string>& args);

std::string top_usage_text();

}  // namespace netif_rx
