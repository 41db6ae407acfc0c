// A container runtime's bundle config.json (containerd, CRI-O, podman),
// docker's config.v2.json or podman's containers.json, as the attribution
// reads them: outside input, bounded in
// size and depth.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "owners/container_names.h"
#include "owners/docker_container.h"
#include "owners/oci_bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto bundle = netif_rx::parse_bundle_config(text)) {
    (void)netif_rx::owner_of_bundle(*bundle, "id");
  }
  if (const auto docker = netif_rx::parse_docker_config(text)) {
    (void)netif_rx::owner_of_bundle(*docker, "id");
  }
  (void)netif_rx::parse_container_names(text);
  return 0;
}
