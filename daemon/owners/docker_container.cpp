#include "owners/docker_container.h"

#include "owners/json_path_reader.h"

namespace netif_rx {
namespace {

class DockerReader final : public JsonPathReader {
 public:
  BundleConfig config;

 private:
  void on_string(const Path& path, const std::string& value) override {
    if (at(path, {"Name"})) {
      config.container_name = value.empty() || value[0] != '/' ? value : value.substr(1);
    } else if (at(path, {"NetworkSettings", "SandboxKey"})) {
      config.netns_path = value;
      config.own_network = !value.empty();
    } else if (at(path, {"Config", "Labels", "io.kubernetes.pod.namespace"})) {
      config.pod_namespace = value;
    } else if (at(path, {"Config", "Labels", "io.kubernetes.pod.name"})) {
      config.pod_name = value;
    } else if (at(path, {"Config", "Labels", "io.kubernetes.pod.uid"})) {
      config.pod_uid = value;
    } else if (at(path, {"Config", "Labels", "io.kubernetes.docker.type"})) {
      config.container_type = value;
    }
  }
};

}  // namespace

std::optional<BundleConfig> parse_docker_config(std::string_view json_text) {
  if (json_text.size() > kMaxBundleConfigBytes) return std::nullopt;
  DockerReader reader;
  if (!reader.parse(json_text)) return std::nullopt;
  return std::move(reader.config);
}

}  // namespace netif_rx
