#include "owners/oci_bundle.h"

#include "owners/json_path_reader.h"

namespace netif_rx {
namespace {

// Keeps what BundleConfig holds: the annotations (root's "annotations"
// object) and the network entry of linux.namespaces.
class BundleReader final : public JsonPathReader {
 public:
  BundleConfig config;

 private:
  void on_string(const Path& path, const std::string& value) override {
    if (path.size() == 2 && path[0].object && path[0].key == "annotations" && path[1].object) {
      annotation(path[1].key, value);
    }
    if (in_namespace_entry(path)) {
      if (path[3].key == "type") entry_type_ = value;
      if (path[3].key == "path") entry_path_ = value;
    }
  }
  void on_object_end(const Path& path) override {
    if (!in_namespace_entry(path)) return;
    if (entry_type_ == "network") {
      config.own_network = true;
      config.netns_path = entry_path_;
    }
    entry_type_.clear();
    entry_path_.clear();
  }
  // linux.namespaces[i].<key>
  static bool in_namespace_entry(const Path& path) {
    return path.size() == 4 && path[0].object && path[0].key == "linux" && path[1].object &&
           path[1].key == "namespaces" && !path[2].object && path[3].object;
  }
  void annotation(const std::string& name, const std::string& value) {
    // containerd (CRI plugin)
    if (name == "io.kubernetes.cri.container-type") config.container_type = value;
    if (name == "io.kubernetes.cri.sandbox-namespace") config.pod_namespace = value;
    if (name == "io.kubernetes.cri.sandbox-name") config.pod_name = value;
    if (name == "io.kubernetes.cri.sandbox-uid") config.pod_uid = value;
    if (name == "io.kubernetes.cri.container-name") config.container_name = value;
    // CRI-O
    if (name == "io.kubernetes.cri-o.ContainerType") config.container_type = value;
    if (name == "io.kubernetes.pod.namespace") config.pod_namespace = value;
    if (name == "io.kubernetes.pod.name") config.pod_name = value;
    if (name == "io.kubernetes.pod.uid") config.pod_uid = value;
    if (name == "io.kubernetes.container.name") config.container_name = value;
    if (name == "io.kubernetes.cri-o.SandboxID") config.sandbox_id = value;
    // podman
    if (name == "io.container.manager") config.manager = value;
  }

  std::string entry_type_;
  std::string entry_path_;
};

}  // namespace

std::optional<BundleConfig> parse_bundle_config(std::string_view json_text) {
  if (json_text.size() > kMaxBundleConfigBytes) return std::nullopt;
  BundleReader reader;
  if (!reader.parse(json_text)) return std::nullopt;
  return std::move(reader.config);
}

NetnsOwner owner_of_bundle(const BundleConfig& bundle, std::string_view bundle_name) {
  NetnsOwner owner;
  if (!bundle.pod_name.empty() || !bundle.pod_uid.empty()) {
    owner.kind = OwnerKind::pod;
    owner.namespace_name = bundle.pod_namespace;
    owner.pod = bundle.pod_name;
    owner.pod_uid = bundle.pod_uid;
    return owner;
  }
  owner.kind = OwnerKind::container;
  owner.container =
      bundle.container_name.empty() ? std::string(bundle_name) : bundle.container_name;
  return owner;
}

}  // namespace netif_rx
