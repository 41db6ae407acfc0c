// A BPF filesystem of a test's own, for the tests of a pinned probe.
#pragma once

#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

#include <string>

#include "netif_rx.h"

namespace netif_rx::test {

// A BPF filesystem of the test's own on a temporary directory, so that
// nothing touches /sys/fs/bpf; unmounted (its pins go) even on failure.
class PrivateBpffs {
 public:
  PrivateBpffs() {
    char dir_template[] = "/tmp/netif_rx_pins.XXXXXX";
    if (::mkdtemp(dir_template) == nullptr) return;
    dir_ = dir_template;
    mounted_ = ::mount("bpf", dir_.c_str(), "bpf", 0, nullptr) == 0;
  }
  ~PrivateBpffs() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }
  PrivateBpffs(const PrivateBpffs&) = delete;
  PrivateBpffs& operator=(const PrivateBpffs&) = delete;

  bool mounted() const { return mounted_; }
  std::string pin_path() const { return dir_ + "/netif_rx_exporter"; }
  std::string layout_dir() const { return pin_path() + "/v" + std::to_string(NETIF_RX_PIN_LAYOUT); }

 private:
  std::string dir_;
  bool mounted_ = false;
};

}  // namespace netif_rx::test
