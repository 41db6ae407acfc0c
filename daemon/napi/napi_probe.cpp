#include "napi/napi_probe.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cerrno>

#include "netif_rx_napi_bpf.skel.h"
#include "probe/probe.h"
#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {

std::optional<bool> napi_poll_in_btf(const std::string& btf_path, std::string& error) {
  const auto free_btf = [](btf* parsed) { btf__free(parsed); };
  std::unique_ptr<btf, decltype(free_btf)> parsed(btf__parse(btf_path.c_str(), nullptr), free_btf);
  if (!parsed) {
    error = "reading BTF at " + btf_path + " failed: " + errno_text(errno);
    return std::nullopt;
  }
  return btf__find_by_name_kind(parsed.get(), "btf_trace_napi_poll", BTF_KIND_TYPEDEF) >= 0;
}

void NapiProbe::SkeletonDeleter::operator()(netif_rx_napi_bpf* skeleton) const {
  netif_rx_napi_bpf::destroy(skeleton);
}

NapiProbe::~NapiProbe() {
  if (skeleton_) log::info("detaching the NAPI poll counter", {{"program", program_name_}});
}

std::unique_ptr<NapiProbe> NapiProbe::load(const NapiProbeOptions& options, std::string& why) {
  route_libbpf_logs();
  // Step 1: the per-CPU values' size.
  const int possible_cpus = libbpf_num_possible_cpus();
  if (possible_cpus <= 0) {
    why = "cannot count possible CPUs: " + errno_text(possible_cpus);
    return nullptr;
  }

  // Steps 2 and 3: open and configure.
  LIBBPF_OPTS(bpf_object_open_opts, open_opts);
  if (options.btf_path != "/sys/kernel/btf/vmlinux")
    open_opts.btf_custom_path = options.btf_path.c_str();
  std::unique_ptr<netif_rx_napi_bpf, SkeletonDeleter> skeleton(netif_rx_napi_bpf::open(&open_opts));
  if (!skeleton) {
    why = "opening the embedded NAPI poll counter failed: " + errno_text(errno);
    return nullptr;
  }
  skeleton->rodata->host_netns_inum = options.host_netns_inum;
  skeleton->rodata->count_all_namespaces = options.count_all_namespaces;

  // Step 4: load (the verifier runs here).
  if (int err = netif_rx_napi_bpf::load(skeleton.get()); err != 0) {
    why = "loading tp_btf/napi_poll failed: " + errno_text(err) +
          (err == -EACCES || err == -EINVAL
               ? "; the kernel's verifier rejected it (run with --log.level=debug for its log)"
               : "") +
          (err == -ENOENT || err == -ESRCH ? "; the kernel's BTF has no napi_poll tracepoint" : "");
    return nullptr;
  }
  // Step 5: attach.
  if (int err = netif_rx_napi_bpf::attach(skeleton.get()); err != 0) {
    why = "attaching tp_btf/napi_poll failed: " + errno_text(err);
    return nullptr;
  }

  auto probe = std::unique_ptr<NapiProbe>(new NapiProbe());
  probe->program_name_ = bpf_program__name(skeleton->progs.netif_rx_napi);
  probe->skeleton_ = std::move(skeleton);
  probe->possible_cpus_ = static_cast<unsigned>(possible_cpus);
  log::info("NAPI poll counter attached",
            {{"program", probe->program_name_}, {"attach", "tp_btf/napi_poll"}});
  return probe;
}

std::size_t NapiProbe::forget_devices(const std::vector<netif_rx_device_key>& devices) {
  std::size_t deleted = 0;
  for (const netif_rx_device_key& device : devices) {
    if (bpf_map_delete_elem(napi_counters_fd(), &device) == 0) {
      ++deleted;
    } else if (errno != ENOENT) {
      log::warn("deleting a forgotten device's NAPI counts failed",
                {{"ifindex", device.ifindex}, {"err", errno_text(errno)}});
    }
  }
  return deleted;
}

int NapiProbe::napi_counters_fd() const { return bpf_map__fd(skeleton_->maps.napi_counters); }
int NapiProbe::napi_totals_fd() const { return bpf_map__fd(skeleton_->maps.napi_totals); }
int NapiProbe::program_fd() const { return bpf_program__fd(skeleton_->progs.netif_rx_napi); }

}  // namespace netif_rx
