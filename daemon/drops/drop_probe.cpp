#include "drops/drop_probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <unordered_set>

#include "counters/device_counters.h"
#include "netif_rx_drops_bpf.skel.h"
#include "probe/probe.h"
#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {

void DropProbe::SkeletonDeleter::operator()(netif_rx_drops_bpf* skeleton) const {
  netif_rx_drops_bpf::destroy(skeleton);
}

DropProbe::~DropProbe() {
  if (skeleton_) log::info("detaching the drop counter", {{"program", program_name_}});
}

std::unique_ptr<DropProbe> DropProbe::load(const DropProbeOptions& options, std::string& why) {
  route_libbpf_logs();
  // Step 1: the kernel's reasons, by name.
  const auto enumerators = read_drop_reason_enum(options.btf_path, why);
  if (!enumerators) return nullptr;
  DropReasonTable reasons = drop_reason_table(*enumerators);
  bool any = false;
  for (bool counted : reasons.counted) any = any || counted;
  if (!any) {
    why = "the kernel's BTF has no enum skb_drop_reason (drop reasons need Linux 5.17)";
    return nullptr;
  }
  const int possible_cpus = libbpf_num_possible_cpus();
  if (possible_cpus <= 0) {
    why = "cannot count possible CPUs: " + errno_text(possible_cpus);
    return nullptr;
  }

  // Steps 2 and 3: open and configure.
  LIBBPF_OPTS(bpf_object_open_opts, open_opts);
  if (options.btf_path != "/sys/kernel/btf/vmlinux")
    open_opts.btf_custom_path = options.btf_path.c_str();
  std::unique_ptr<netif_rx_drops_bpf, SkeletonDeleter> skeleton(
      netif_rx_drops_bpf::open(&open_opts));
  if (!skeleton) {
    why = "opening the embedded drop counter failed: " + errno_text(errno);
    return nullptr;
  }
  skeleton->rodata->host_netns_inum = options.host_netns_inum;
  skeleton->rodata->count_all_namespaces = options.count_all_namespaces;
  skeleton->rodata->backlog_reason = reasons.backlog.value_or(NETIF_RX_DROP_REASONS);
  for (std::size_t value = 0; value < reasons.counted.size(); ++value) {
    if (reasons.counted[value]) skeleton->rodata->rx_reasons[value / 64] |= 1ULL << (value % 64);
  }

  // Step 4: load (the verifier runs here).
  if (int err = netif_rx_drops_bpf::load(skeleton.get()); err != 0) {
    why = "loading tp_btf/kfree_skb failed: " + errno_text(err) +
          (err == -EACCES || err == -EINVAL
               ? "; the kernel's verifier rejected it (run with --log.level=debug for its log)"
               : "");
    return nullptr;
  }
  // Step 5: attach.
  if (int err = netif_rx_drops_bpf::attach(skeleton.get()); err != 0) {
    why = "attaching tp_btf/kfree_skb failed: " + errno_text(err);
    return nullptr;
  }

  auto probe = std::unique_ptr<DropProbe>(new DropProbe());
  probe->program_name_ = bpf_program__name(skeleton->progs.netif_rx_drops);
  probe->skeleton_ = std::move(skeleton);
  probe->reasons_ = std::move(reasons);
  probe->possible_cpus_ = static_cast<unsigned>(possible_cpus);
  log::info("drop counter attached",
            {{"program", probe->program_name_},
             {"attach", "tp_btf/kfree_skb"},
             {"backlog_reason", probe->reasons_.backlog ? "CPU_BACKLOG" : "none (before 5.18)"}});
  return probe;
}

int DropProbe::drop_counters_fd() const { return bpf_map__fd(skeleton_->maps.drop_counters); }
int DropProbe::drop_device_names_fd() const {
  return bpf_map__fd(skeleton_->maps.drop_device_names);
}
int DropProbe::drop_totals_fd() const { return bpf_map__fd(skeleton_->maps.drop_totals); }
std::size_t DropProbe::forget_devices(const std::vector<netif_rx_device_key>& devices) {
  if (devices.empty()) return 0;
  const std::unordered_set<netif_rx_device_key, DeviceKeyHash> forgotten(devices.begin(),
                                                                         devices.end());
  const int counters = drop_counters_fd();
  // The keys first, then the deletions: deleting while walking the hash
  // could make the walk start over or skip keys.
  std::vector<netif_rx_drop_key> doomed;
  netif_rx_drop_key key{};
  netif_rx_drop_key next{};
  bool first = true;
  for (std::size_t walked = 0; walked <= NETIF_RX_MAX_DROP_ENTRIES; ++walked) {
    if (bpf_map_get_next_key(counters, first ? nullptr : &key, &next) != 0) break;
    first = false;
    key = next;
    if (forgotten.count({key.netns_inum, key.ifindex, key.netns_salt}) != 0) doomed.push_back(key);
  }
  std::size_t deleted = 0;
  for (const netif_rx_drop_key& entry : doomed) {
    if (bpf_map_delete_elem(counters, &entry) == 0 || errno == ENOENT) {
      ++deleted;
      continue;
    }
    log::warn("deleting a forgotten device's drop counts failed",
              {{"ifindex", entry.ifindex}, {"err", errno_text(errno)}});
  }
  const int names = drop_device_names_fd();
  for (const netif_rx_device_key& device : forgotten) {
    if (bpf_map_delete_elem(names, &device) != 0 && errno != ENOENT) {
      log::warn("deleting a forgotten device's drop name failed",
                {{"ifindex", device.ifindex}, {"err", errno_text(errno)}});
    }
  }
  return deleted;
}

int DropProbe::program_fd() const { return bpf_program__fd(skeleton_->progs.netif_rx_drops); }

}  // namespace netif_rx
