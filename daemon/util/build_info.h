// The build's identity (fixed by CMake at configure time) as the Prometheus ecosystem shows it:
// the multi-line --version text of Prometheus binaries and the labels of build_info.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace netif_rx {

struct BuildInfo {
  std::string version;
  std::string revision;
  std::string branch;
  std::string build_user;
  std::string build_date;  // YYYYMMDD-HH:MM:SS, UTC
  std::string toolchain;   // compiler-version, like Go's goversion
  std::string os;
  std::string arch;
  std::string libbpf_version;  // of the libbpf linked at run time
};

// This binary's identity.
BuildInfo build_info();

// `netif_rx_exporter, version V (branch: B, revision: R)` and indented details, one per line.
std::string version_text(const BuildInfo& info);

// Label pairs of netif_rx_exporter_build_info, in a fixed order.
std::vector<std::pair<std::string, std::string>> build_info_labels(const BuildInfo& info);

}  // namespace netif_rx
