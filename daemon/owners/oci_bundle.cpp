#include "owners/oci_bundle.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace netif_rx {
namespace {

using json = nlohmann::json;

// A SAX reader that follows the path of keys and keeps what BundleConfig
// holds; everything else is skipped without being stored.
class BundleReader final : public nlohmann::json_sax<json> {
 public:
  BundleConfig config;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& value) override {
    if (in_annotations()) annotation(frames_[1].key, value);
    if (in_namespace_entry()) {
      if (frames_[3].key == "type") entry_type_ = value;
      if (frames_[3].key == "path") entry_path_ = value;
    }
    return true;
  }
  bool start_object(std::size_t) override { return push(true); }
  bool key(string_t& name) override {
    frames_.back().key = name;
    return true;
  }
  bool end_object() override {
    if (in_namespace_entry()) {
      if (entry_type_ == "network") {
        config.own_network = true;
        config.netns_path = entry_path_;
      }
      entry_type_.clear();
      entry_path_.clear();
    }
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return push(false); }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Frame {
    bool object;
    std::string key;
  };

  bool push(bool object) {
    if (frames_.empty() && !object) return false;  // the root is an object
    if (frames_.size() >= kMaxBundleDepth) return false;
    frames_.push_back({object, {}});
    return true;
  }
  bool in_annotations() const {
    return frames_.size() == 2 && frames_[0].key == "annotations" && frames_[1].object;
  }
  // linux.namespaces[i].<key>
  bool in_namespace_entry() const {
    return frames_.size() == 4 && frames_[0].key == "linux" && frames_[1].object &&
           frames_[1].key == "namespaces" && !frames_[2].object && frames_[3].object;
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
  }

  std::vector<Frame> frames_;
  std::string entry_type_;
  std::string entry_path_;
};

}  // namespace

std::optional<BundleConfig> parse_bundle_config(std::string_view json_text) {
  if (json_text.size() > kMaxBundleConfigBytes) return std::nullopt;
  BundleReader reader;
  if (!json::sax_parse(json_text.begin(), json_text.end(), &reader,
                       nlohmann::detail::input_format_t::json, true)) {
    return std::nullopt;
  }
  return std::move(reader.config);
}

NetnsOwner owner_of_bundle(const BundleConfig& bundle, std::string_view bundle_id) {
  NetnsOwner owner;
  if (!bundle.pod_name.empty() || !bundle.pod_uid.empty()) {
    owner.kind = OwnerKind::pod;
    owner.namespace_name = bundle.pod_namespace;
    owner.pod = bundle.pod_name;
    owner.pod_uid = bundle.pod_uid;
    return owner;
  }
  owner.kind = OwnerKind::container;
  owner.container = bundle.container_name.empty() ? std::string(bundle_id) : bundle.container_name;
  return owner;
}

}  // namespace netif_rx
