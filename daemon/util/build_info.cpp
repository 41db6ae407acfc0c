#include "util/build_info.h"

#include <bpf/libbpf.h>

#include "version.h"

namespace netif_rx {

BuildInfo build_info() {
  return BuildInfo{
      kVersion,
      kRevision,
      kBranch,
      kBuildUser,
      kBuildDate,
      kToolchain,
      kOs,
      kArch,
      std::to_string(libbpf_major_version()) + "." + std::to_string(libbpf_minor_version())};
}

std::string version_text(const BuildInfo& info) {
  return "netif_rx_exporter, version " + info.version + " (branch: " + info.branch +
         ", revision: " + info.revision + ")\n" + "  build user:       " + info.build_user + "\n" +
         "  build date:       " + info.build_date + "\n" + "  toolchain:        " + info.toolchain +
         "\n" + "  libbpf version:   " + info.libbpf_version + "\n" +
         "  platform:         " + info.os + "/" + info.arch + "\n";
}

std::vector<std::pair<std::string, std::string>> build_info_labels(const BuildInfo& info) {
  return {{"version", info.version},
          {"revision", info.revision},
          {"branch", info.branch},
          {"toolchain", info.toolchain},
          {"os", info.os},
          {"arch", info.arch},
          {"libbpf_version", info.libbpf_version}};
}

}  // namespace netif_rx
