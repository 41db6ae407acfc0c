#include "kernel_programs.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "empty_floor.skel.h"
#include "netif_rx.h"
#include "netif_rx_bpf.skel.h"

namespace netif_rx::bench {

RunCounters read_run_counters(int program_fd) {
  bpf_prog_info info{};
  __u32 length = sizeof info;
  if (bpf_obj_get_info_by_fd(program_fd, &info, &length) != 0)
    throw std::runtime_error("bpf_obj_get_info_by_fd: " + std::string(std::strerror(errno)));
  return {info.run_time_ns, info.run_cnt};
}

ProgramSize read_program_size(int program_fd) {
  bpf_prog_info info{};
  __u32 length = sizeof info;
  if (bpf_obj_get_info_by_fd(program_fd, &info, &length) != 0)
    throw std::runtime_error("bpf_obj_get_info_by_fd: " + std::string(std::strerror(errno)));
  return {info.xlated_prog_len / 8, info.jited_prog_len};
}

namespace {

class LinkOwner {
 public:
  void attach(bpf_program* program, const std::string& what) {
    if (link_) return;
    link_ = bpf_program__attach(program);
    if (!link_) throw std::runtime_error("attaching " + what + ": " + std::strerror(errno));
  }
  void detach() {
    if (link_) bpf_link__destroy(link_);
    link_ = nullptr;
  }
  ~LinkOwner() { detach(); }

 private:
  bpf_link* link_ = nullptr;
};

class OurProbe final : public BenchProgram {
 public:
  OurProbe(std::uint32_t netns_inum, ProbeLayout layout)
      : skeleton_(netif_rx_bpf::open()), layout_(layout) {
    if (!skeleton_) throw std::runtime_error("opening the probe failed");
    skeleton_->rodata->host_netns_inum = netns_inum;
    if (layout == ProbeLayout::hash) bpf_map__set_max_entries(skeleton_->maps.host_counters, 1);
    bpf_program__set_autoload(skeleton_->progs.netif_rx_tp, false);
    skeleton_->rodata->generation = 1;
    if (netif_rx_bpf::load(skeleton_) != 0) throw std::runtime_error("loading the probe failed");
    // The probe as the exporter runs it: counting once its generation is the
    // control map's.
    const netif_rx_control counting{1, 0};
    const __u32 key = 0;
    if (bpf_map_update_elem(bpf_map__fd(skeleton_->maps.probe_control), &key, &counting, 0) != 0)
      throw std::runtime_error("writing the probe's control map failed");
  }
  ~OurProbe() override {
    link_.detach();
    netif_rx_bpf::destroy(skeleton_);
  }
  std::string name() const override {
    return layout_ == ProbeLayout::array ? "probe, array layout" : "probe, hash layout";
  }
  void attach() override { link_.attach(skeleton_->progs.netif_rx_btf, name()); }
  void detach() override { link_.detach(); }
  int program_fd() const override { return bpf_program__fd(skeleton_->progs.netif_rx_btf); }

 private:
  netif_rx_bpf* skeleton_;
  ProbeLayout layout_;
  LinkOwner link_;
};

class EmptyFloor final : public BenchProgram {
 public:
  EmptyFloor() : skeleton_(empty_floor::open_and_load()) {
    if (!skeleton_) throw std::runtime_error("loading the empty program failed");
  }
  ~EmptyFloor() override {
    link_.detach();
    empty_floor::destroy(skeleton_);
  }
  std::string name() const override { return "empty tp_btf (floor)"; }
  void attach() override { link_.attach(skeleton_->progs.empty_floor, name()); }
  void detach() override { link_.detach(); }
  int program_fd() const override { return bpf_program__fd(skeleton_->progs.empty_floor); }

 private:
  empty_floor* skeleton_;
  LinkOwner link_;
};

}  // namespace

std::unique_ptr<BenchProgram> make_our_probe(std::uint32_t netns_inum, ProbeLayout layout) {
  return std::make_unique<OurProbe>(netns_inum, layout);
}
std::unique_ptr<BenchProgram> make_empty_floor() { return std::make_unique<EmptyFloor>(); }

}  // namespace netif_rx::bench
