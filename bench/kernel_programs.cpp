#include "kernel_programs.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "cost_ladder.skel.h"
#include "empty_floor.skel.h"
#include "netif_rx.h"
#include "netif_rx_bpf.skel.h"
#include "netif_rx_without_routes.skel.h"
#include "probe/netns_blocks.h"

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

constexpr std::uint32_t kNoNamespace = 1;  // no namespace's inode number
constexpr std::uint32_t kBlocks = NETIF_RX_DEFAULT_NETNS_BLOCKS;
constexpr std::uint32_t kBlockSlots = NETIF_RX_DEFAULT_NETNS_BLOCK_SLOTS;

// The probe of one build: `Skeleton` is netif_rx_bpf, the exporter's, or
// netif_rx_without_routes, the same source built without queues and steering.
template <typename Skeleton>
class OurProbe final : public BenchProgram {
 public:
  OurProbe(std::uint32_t netns_inum, ProbeLayout layout)
      : skeleton_(Skeleton::open()), layout_(layout) {
    if (!skeleton_) throw std::runtime_error("opening the probe failed");
    skeleton_->rodata->host_netns_inum = layout == ProbeLayout::blocks ? kNoNamespace : netns_inum;
    if (layout == ProbeLayout::hash) bpf_map__set_max_entries(skeleton_->maps.host_counters, 1);
    if (layout == ProbeLayout::blocks) {
      skeleton_->rodata->count_all_namespaces = true;
      skeleton_->rodata->netns_blocks = kBlocks;
      skeleton_->rodata->netns_block_slots = kBlockSlots;
      skeleton_->rodata->netns_table_mask = netns_table_size(kBlocks) - 1;
      bpf_map__set_max_entries(skeleton_->maps.netns_table, netns_table_size(kBlocks));
      bpf_map__set_max_entries(skeleton_->maps.netns_slots, kBlocks * kBlockSlots);
    }
    bpf_program__set_autoload(skeleton_->progs.netif_rx_tp, false);
    skeleton_->rodata->generation = 1;
    if (Skeleton::load(skeleton_) != 0) throw std::runtime_error("loading the probe failed");
    // The probe as the exporter runs it: counting once its generation is the
    // control map's.
    const netif_rx_control counting{1, 0};
    const __u32 key = 0;
    if (bpf_map_update_elem(bpf_map__fd(skeleton_->maps.data_control), &key, &counting, 0) != 0)
      throw std::runtime_error("writing the probe's control map failed");
  }
  ~OurProbe() override {
    link_.detach();
    Skeleton::destroy(skeleton_);
  }
  std::string name() const override {
    switch (layout_) {
      case ProbeLayout::array:
        return "probe, array layout";
      case ProbeLayout::array_without_routes:
        return "probe, array layout without queues and steering";
      case ProbeLayout::hash:
        return "probe, hash layout";
      case ProbeLayout::blocks:
        break;
    }
    return placed_ ? "probe, array blocks" : "probe, hash (other namespaces)";
  }
  // Places namespace `netns_inum` in block `block`, with the salt of its
  // hash entries: placed, or not (another namespace holds its table entry,
  // as it happens to the exporter: its devices stay in the hash), or none
  // (no packet of it was counted); `failed`: reading or writing the table
  // failed.
  enum class Placed { placed, entry_held, no_entries, failed };
  Placed place(std::uint32_t netns_inum, std::uint32_t block) {
    const int counters = bpf_map__fd(skeleton_->maps.device_counters);
    const int table = bpf_map__fd(skeleton_->maps.netns_table);
    const std::uint32_t index = netns_table_index(netns_inum, netns_table_size(kBlocks));
    netif_rx_netns_block held{};
    if (bpf_map_lookup_elem(table, &index, &held) != 0) return Placed::failed;
    if (held.netns_inum != 0) return Placed::entry_held;
    netif_rx_device_key key{};
    netif_rx_device_key next{};
    bool first = true;
    while (bpf_map_get_next_key(counters, first ? nullptr : &key, &next) == 0) {
      first = false;
      key = next;
      if (key.netns_inum != netns_inum) continue;
      const netif_rx_netns_block entry =
          netif_rx_netns_block_entry(netns_inum, key.netns_salt, block);
      if (bpf_map_update_elem(table, &index, &entry, BPF_ANY) != 0) return Placed::failed;
      placed_ = true;
      return Placed::placed;
    }
    return Placed::no_entries;
  }
  void attach() override { link_.attach(skeleton_->progs.netif_rx_btf, name()); }
  void detach() override { link_.detach(); }
  int program_fd() const override { return bpf_program__fd(skeleton_->progs.netif_rx_btf); }

 private:
  Skeleton* skeleton_;
  ProbeLayout layout_;
  bool placed_ = false;
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

// One rung of the cost ladder: a program of the ladder's object, which the
// rungs share.
class LadderRung final : public BenchProgram {
 public:
  LadderRung(std::shared_ptr<cost_ladder> skeleton, bpf_program* program, std::string name)
      : skeleton_(std::move(skeleton)), program_(program), name_(std::move(name)) {}
  ~LadderRung() override { link_.detach(); }
  std::string name() const override { return name_; }
  void attach() override { link_.attach(program_, name_); }
  void detach() override { link_.detach(); }
  int program_fd() const override { return bpf_program__fd(program_); }

 private:
  std::shared_ptr<cost_ladder> skeleton_;
  bpf_program* program_;
  std::string name_;
  LinkOwner link_;
};

}  // namespace

std::vector<std::unique_ptr<BenchProgram>> make_cost_ladder(std::uint32_t netns_inum) {
  cost_ladder* opened = cost_ladder::open();
  if (!opened) throw std::runtime_error("opening the cost ladder failed");
  std::shared_ptr<cost_ladder> skeleton(opened, [](cost_ladder* s) { cost_ladder::destroy(s); });
  skeleton->rodata->counted_netns_inum = netns_inum;
  if (cost_ladder::load(skeleton.get()) != 0)
    throw std::runtime_error("loading the cost ladder failed");
  std::vector<std::unique_ptr<BenchProgram>> rungs;
  rungs.push_back(std::make_unique<LadderRung>(skeleton, skeleton->progs.one_increment,
                                               "ladder: one per-CPU increment"));
  rungs.push_back(std::make_unique<LadderRung>(skeleton, skeleton->progs.by_ifindex,
                                               "ladder: per-CPU slot by ifindex"));
  rungs.push_back(std::make_unique<LadderRung>(skeleton, skeleton->progs.by_namespace,
                                               "ladder: slot by ifindex, own namespace only"));
  return rungs;
}

std::unique_ptr<BenchProgram> make_our_probe(std::uint32_t netns_inum, ProbeLayout layout) {
  if (layout == ProbeLayout::array_without_routes)
    return std::make_unique<OurProbe<netif_rx_without_routes>>(netns_inum, layout);
  return std::make_unique<OurProbe<netif_rx_bpf>>(netns_inum, layout);
}
std::unique_ptr<BenchProgram> make_our_probe_in_blocks(
    const std::vector<std::uint32_t>& netns_inums, const std::function<void()>& send) {
  auto probe = std::make_unique<OurProbe<netif_rx_bpf>>(kNoNamespace, ProbeLayout::blocks);
  probe->attach();
  send();
  probe->detach();
  std::size_t held = 0;
  for (std::uint32_t block = 0; block < netns_inums.size(); ++block) {
    const auto placed = probe->place(netns_inums[block], block);
    if (placed == OurProbe<netif_rx_bpf>::Placed::no_entries)
      throw std::runtime_error("namespace " + std::to_string(netns_inums[block]) +
                               " could not be placed in a block: no packet of it was counted");
    if (placed == OurProbe<netif_rx_bpf>::Placed::failed)
      throw std::runtime_error("namespace " + std::to_string(netns_inums[block]) +
                               " could not be placed in a block: the probe's netns_table "
                               "could not be read or written: " +
                               std::strerror(errno));
    if (placed == OurProbe<netif_rx_bpf>::Placed::entry_held) ++held;
  }
  // The table is direct-mapped by inode number: namespaces of one entry
  // are the exporter's case too, and measured as it counts them.
  if (held > 0)
    std::fprintf(stderr,
                 "%zu of %zu namespaces share their netns_table entry with another: their "
                 "devices are counted in the hash, as the exporter counts them\n",
                 held, netns_inums.size());
  return probe;
}

std::unique_ptr<BenchProgram> make_empty_floor() { return std::make_unique<EmptyFloor>(); }

}  // namespace netif_rx::bench
