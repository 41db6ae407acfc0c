// Pins in a BPF filesystem: <root>/v<NETIF_RX_PIN_LAYOUT>/<name>, one file per
// kept descriptor, and the control map at <root>/control. The root is locked for the exporter's
// lifetime (PinLock); the pins of other layouts found under it are another
// version's probe, whose counts are carried over or dropped.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "continuity/pin_lock.h"
#include "continuity/pin_store.h"

namespace netif_rx {

class BpffsPinStore final : public PinStore {
 public:
  // Locks `root`. Throws ProbeError.
  static std::unique_ptr<BpffsPinStore> open(const std::string& root);

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
  std::string layout_where(const std::string& layout) const override {
    return root_ + "/" + layout;
  }
  bool managed_by_service_manager() const override { return false; }
  std::string where(const std::string& name) const override { return directory_ + "/" + name; }
  std::string where() const override { return directory_; }
  std::string control_where() const override { return root_ + "/control"; }
  std::string remedy() const override;

 private:
  BpffsPinStore(PinLock lock, std::string root, std::string directory)
      : lock_(std::move(lock)), root_(std::move(root)), directory_(std::move(directory)) {}

  PinLock lock_;
  std::string root_;
  std::string directory_;  // root_/v<layout>
};

}  // namespace netif_rx
