// systemd's file-descriptor store as the place of a pinned probe
// (--bpf.fd-store): each descriptor is stored as probe.v<NETIF_RX_PIN_LAYOUT>.<name>,
// the control map as probe.control, and comes back with the sockets of a .socket unit in
// $LISTEN_FDS, told apart by name. systemd keeps the store across restarts of the service's process
// and closes it when the unit stops: nothing is left in bpffs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "continuity/pin_store.h"

namespace netif_rx {

// Every name this exporter gives to a descriptor in the store starts so.
constexpr const char* kStoredProbePrefix = "probe.";

class ServicePinStore final : public PinStore {
 public:
  // Takes the probe's descriptors systemd passed back, this layout's and
  // other layouts'. Throws ProbeError when no service manager listens
  // ($NOTIFY_SOCKET unset).
  static std::unique_ptr<ServicePinStore> open();

  std::vector<std::string> names() const override;
  UniqueFd open_fd(const std::string& name) override;
  void keep(const std::string& name, int fd) override;
  void replace(const std::string& name, int fd) override;
  UniqueFd open_control() override;
  void keep_control(int fd) override;
  void remove_control() override;
  void remove() override;
  std::vector<std::string> other_layouts() const override;
  std::vector<std::pair<std::string, UniqueFd>> take_layout(const std::string& layout) override;
  void remove_layout(const std::string& layout) override;
  std::string layout_where(const std::string& layout) const override;
  bool managed_by_service_manager() const override { return true; }
  std::string where(const std::string& name) const override;
  std::string where() const override;
  std::string control_where() const override;
  std::string remedy() const override;

 private:
  ServicePinStore() = default;

  std::map<std::string, UniqueFd> passed_;  // by name without the layout's prefix
  // Other layouts' descriptors: by layout ("v3"), then by name without the
  // prefix.
  std::map<std::string, std::map<std::string, UniqueFd>> other_layouts_;
  UniqueFd passed_control_;
  bool control_stored_ = false;      // systemd holds a control map
  std::vector<std::string> stored_;  // names kept by this exporter
};

// Drops from systemd's store every probe descriptor it passed back, when the
// probe is not kept there (`why`), so that no second probe stays attached.
void release_stored_probe(const std::string& why);

}  // namespace netif_rx
