#include "probe/probe.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <mutex>
#include <vector>

#include "continuity/probe_control.h"
#include "continuity/probe_handover.h"
#include "continuity/service_pin_store.h"
#include "netif_rx_bpf.skel.h"
#include "probe/netns_blocks.h"
#include "sys/privileges.h"
#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {
namespace {

int libbpf_log(libbpf_print_level level, const char* format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int length = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  if (length <= 0) return 0;
  std::vector<char> text(static_cast<std::size_t>(length) + 1);
  std::vsnprintf(text.data(), text.size(), format, args);
  std::string_view message(text.data(), static_cast<std::size_t>(length));

  // The verifier's log is long and only useful when debugging: the caller
  // reports the rejection itself in one line.
  const bool verifier_log = message.find("PROG LOAD LOG") != std::string_view::npos;
  if (level == LIBBPF_WARN && !verifier_log) {
    log::warn("libbpf", {{"detail", message}});
  } else {
    log::debug("libbpf", {{"detail", message}});
  }
  return 0;
}

const char* kPrivilegeHint =
    "needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run as root, or grant them "
    "(systemd: AmbientCapabilities=CAP_BPF CAP_PERFMON)";

// NETIF_RX_QUEUE_SLOTS for each possible CPU (see bpf/netif_rx.h).
std::uint32_t queue_slots_for_possible_cpus() {
  const int cpus = libbpf_num_possible_cpus();
  return (cpus > 0 ? static_cast<std::uint32_t>(cpus) : 1U) * NETIF_RX_QUEUE_SLOTS;
}

// The own-namespace array: an ifindex per slot, bounded so that its memory
// (slots x 24 bytes x CPUs) stays small at a large max_devices.
std::uint32_t host_slots_for(std::uint32_t max_devices) {
  return std::min<std::uint32_t>(max_devices, NETIF_RX_MAX_HOST_SLOTS);
}

struct Attempt {
  bool use_tp_btf;
};

}  // namespace

ProbeOptions probe_options_for(const Config& config, std::uint32_t host_netns_inum,
                               std::string btf_path) {
  ProbeOptions options;
  options.host_netns_inum = host_netns_inum;
  options.count_all_namespaces = config.namespaces == NamespaceMode::all;
  options.max_devices = config.max_devices;
  if (options.count_all_namespaces) {
    options.netns_blocks = config.netns_blocks;
    options.netns_block_slots = config.netns_block_slots;
  }
  options.attach = config.attach;
  options.btf_path = std::move(btf_path);
  return options;
}

void route_libbpf_logs() {
  static std::once_flag once;
  std::call_once(once, [] { libbpf_set_print(libbpf_log); });
}

void Probe::SkeletonDeleter::operator()(netif_rx_bpf* skeleton) const {
  netif_rx_bpf::destroy(skeleton);
}

Probe::~Probe() {
  if (!skeleton_) return;
  if (pins_ && pins_->managed_by_service_manager()) {
    log::info(
        "leaving the probe in systemd's file-descriptor store: a restart adopts it, a stop of "
        "the unit detaches it",
        {{"program", program_name_}});
    return;
  }
  if (pins_) {
    log::info(
        "keeping the probe pinned: it goes on counting until an exporter adopts it "
        "(netif_rx_exporter unpin removes it)",
        {{"program", program_name_}, {"path", pins_->where()}});
    return;
  }
  log::info("detaching probe", {{"program", program_name_}});
}

namespace {

// Steps 1 and 2, and the slots of a per-CPU value. Throws ProbeError.
unsigned check_prerequisites(const ProbeOptions& options) {
  // Step 1: the kernel's BTF, which CO-RE relocation needs.
  if (::access(options.btf_path.c_str(), R_OK) != 0) {
    throw ProbeError(
        "kernel BTF not readable at " + options.btf_path + ": " + errno_text(errno) +
        "; the probe needs a kernel built with CONFIG_DEBUG_INFO_BTF=y (5.10 or later), "
        "or --bpf.btf-path pointing at this kernel's BTF");
  }
  // Step 2: privileges, checked up front for a clear answer.
  if (!can_load_bpf()) {
    throw ProbeError("missing privileges to load the probe: it " + std::string(kPrivilegeHint) +
                     "; this process has " + describe_capabilities());
  }

  const int possible_cpus = libbpf_num_possible_cpus();
  if (possible_cpus <= 0) {
    throw ProbeError("cannot count possible CPUs: " + errno_text(possible_cpus));
  }
  return static_cast<unsigned>(possible_cpus);
}

// Steps 3 and 4: the embedded object, opened and configured for one twin.
// Throws ProbeError; the caller owns the result.
netif_rx_bpf* open_configured(const ProbeOptions& options, bool use_tp_btf) {
  LIBBPF_OPTS(bpf_object_open_opts, open_opts);
  if (options.btf_path != "/sys/kernel/btf/vmlinux")
    open_opts.btf_custom_path = options.btf_path.c_str();
  const auto destroy = [](netif_rx_bpf* opened) { netif_rx_bpf::destroy(opened); };
  std::unique_ptr<netif_rx_bpf, decltype(destroy)> skeleton(netif_rx_bpf::open(&open_opts),
                                                            destroy);
  if (!skeleton) throw ProbeError("opening the embedded BPF object failed: " + errno_text(errno));

  // Read-only data, map sizes, which twin.
  skeleton->rodata->host_netns_inum = options.host_netns_inum;
  skeleton->rodata->count_all_namespaces = options.count_all_namespaces;
  const std::uint32_t blocks = options.netns_blocks;
  const std::uint32_t block_slots = blocks == 0 ? 1 : options.netns_block_slots;
  if (blocks > NETIF_RX_MAX_NETNS_BLOCKS || block_slots == 0 ||
      block_slots > NETIF_RX_MAX_NETNS_BLOCK_SLOTS ||
      std::uint64_t{blocks} * block_slots > NETIF_RX_MAX_NETNS_SLOTS) {
    throw ProbeError("netns_blocks x netns_block_slots (" + std::to_string(blocks) + " x " +
                     std::to_string(block_slots) + ") is out of range: at most " +
                     std::to_string(NETIF_RX_MAX_NETNS_SLOTS) + " slots");
  }
  const std::uint32_t table_size = netns_table_size(blocks);
  skeleton->rodata->netns_blocks = blocks;
  skeleton->rodata->netns_block_slots = block_slots;
  skeleton->rodata->netns_table_mask = table_size - 1;
  for (const auto& [map, entries] :
       {std::pair{skeleton->maps.device_counters, options.max_devices},
        std::pair{skeleton->maps.device_names, options.max_devices},
        std::pair{skeleton->maps.carried_counters, options.max_devices},
        std::pair{skeleton->maps.host_counters, host_slots_for(options.max_devices)},
        std::pair{skeleton->maps.netns_table, table_size},
        std::pair{skeleton->maps.netns_slots, blocks == 0 ? 1U : blocks * block_slots},
        std::pair{skeleton->maps.queue_slots, queue_slots_for_possible_cpus()}}) {
    if (int err = bpf_map__set_max_entries(map, entries); err != 0) {
      throw ProbeError("sizing map " + std::string(bpf_map__name(map)) + " to " +
                       std::to_string(entries) + " entries failed: " + errno_text(err));
    }
  }
  bpf_program__set_autoload(skeleton->progs.netif_rx_btf, use_tp_btf);
  bpf_program__set_autoload(skeleton->progs.netif_rx_tp, !use_tp_btf);
  return skeleton.release();
}

// The programs this exporter may find attached, by the attach option.
std::vector<std::string> adoptable_programs(AttachMode attach) {
  std::vector<std::string> names;
  if (attach != AttachMode::tracepoint) names.emplace_back("netif_rx_btf");
  if (attach != AttachMode::tp_btf) names.emplace_back("netif_rx_tp");
  return names;
}

// Where the probe is kept across restarts: a pin path wins over systemd's
// store; nullopt: nowhere. A probe systemd kept for an earlier exporter of
// this unit and not adopted now would stay attached until the unit stops: it
// is dropped from the store.
std::optional<ProbePins> pins_for(const ProbeOptions& options) {
  if (!options.pin_path.empty()) {
    if (options.fd_store) {
      log::info(
          "--bpf.pin-path and --bpf.fd-store: the probe is pinned in bpffs, not kept by systemd",
          {{"path", options.pin_path}});
    }
    release_stored_probe("--bpf.pin-path: the probe is pinned in bpffs");
    return ProbePins::open(options.pin_path);
  }
  if (options.fd_store) return ProbePins::in_service_store();
  release_stored_probe("no --bpf.fd-store: the probe is not kept across restarts");
  return std::nullopt;
}

// Why step 5 failed, for the message.
std::string load_failure(const char* kind, int err) {
  return "loading the " + std::string(kind) + " program failed: " + errno_text(err) +
         (err == -EACCES || err == -EINVAL
              ? "; the kernel's verifier rejected it (run with --log.level=debug for the "
                "verifier log)"
              : "");
}

// Why step 6 failed, for the message.
std::string attach_failure(const char* kind, bool use_tp_btf, int err) {
  return "attaching " + std::string(kind) + " failed: " + errno_text(err) +
         (use_tp_btf ? "; the kernel may lack BTF-typed tracepoints (needs 5.10 or later)"
                     : "; the classic tracepoint needs tracefs mounted at "
                       "/sys/kernel/tracing and perf_event_open allowed");
}

// Says so when the pinned program `pinned` (the generation of its read-only
// data) is not the one the control map names: an exporter died between its
// handover's flip and its re-pin (or, with another layout, during the carry),
// and nothing counted from its end until this start.
void warn_when_idle(std::optional<std::uint64_t> pinned, const Takeover& takeover,
                    const std::string& where, const char* window) {
  if (!pinned || !takeover.control.valid() || *pinned == takeover.active.generation) return;
  log::warn(std::string("the pinned probe was idle: an exporter died inside its handover (") +
                window + "); the packets received from its end until this start are not counted",
            {{"path", where},
             {"pinned_generation", std::to_string(*pinned)},
             {"counting_generation", std::to_string(takeover.active.generation)}});
}

// The pins of other layouts: the one whose probe counts, when this layout has
// none, hands over and has its counts carried; the rest are removed (their
// counts were carried already, or cannot be).
void take_other_layouts(ProbePins& pins, Takeover& takeover) {
  for (const std::string& layout : pins.other_layouts()) {
    std::string why = "this layout's pinned probe counts (the other's counts were carried over)";
    if (!takeover.adopted && !takeover.previous) {
      why = "there is no control map: layouts before 3 cannot hand the counting over";
      if (takeover.control.valid()) {
        takeover.previous =
            inspect_previous_layout(layout, pins.take_layout(layout), takeover.control.get(), why);
      }
      if (takeover.previous) {
        warn_when_idle(takeover.previous->generation, takeover, pins.layout_where(layout),
                       "after the flip, during the carry of this layout's counts");
        log::info(
            "a probe of another layout counts: this exporter takes the counting over and "
            "carries its counts",
            {{"path", pins.layout_where(layout)}, {"layout", layout}});
        continue;
      }
    }
    log::warn("removing the pins of another layout: this exporter cannot carry their counts over",
              {{"path", pins.layout_where(layout)}, {"layout", layout}, {"why", why}});
    pins.remove_layout(layout);
  }
}

// Step 3 with pins: the control map kept beside the layouts, and the pins of
// this layout checked against an object opened and configured as for a load
// (the pinned read-only data must match it, but for the generation).
Takeover take_over(const ProbeOptions& options, ProbePins& pins) {
  Takeover takeover;
  takeover.control = pins.open_control();
  if (takeover.control.valid()) takeover.active = read_control(takeover.control.get());
  const auto destroy = [](netif_rx_bpf* opened) { netif_rx_bpf::destroy(opened); };
  std::unique_ptr<netif_rx_bpf, decltype(destroy)> checked(open_configured(options, true), destroy);
  std::size_t size = 0;
  const auto* rodata =
      static_cast<const char*>(bpf_map__initial_value(checked->maps.rodata, &size));
  const auto offset = static_cast<std::size_t>(
      reinterpret_cast<const char*>(&checked->rodata->generation) - rodata);
  takeover.adopted = pins.adopt(checked->obj, adoptable_programs(options.attach),
                                {offset, sizeof checked->rodata->generation});
  if (takeover.adopted) {
    warn_when_idle(takeover.adopted->generation, takeover, pins.where(),
                   "after the flip, before or during the re-pin");
  }
  take_other_layouts(pins, takeover);
  return takeover;
}

}  // namespace

void Probe::set_common(const ProbeOptions& options, unsigned possible_cpus) {
  host_slots_ = host_slots_for(options.max_devices);
  host_netns_inum_ = options.host_netns_inum;
  netns_blocks_ = options.netns_blocks;
  netns_block_slots_ = options.netns_blocks == 0 ? 1 : options.netns_block_slots;
  netns_table_size_ = ::netif_rx::netns_table_size(options.netns_blocks);
  possible_cpus_ = possible_cpus;
}

std::unique_ptr<Probe> Probe::load(const ProbeOptions& options) {
  route_libbpf_logs();
  const unsigned possible_cpus = check_prerequisites(options);

  std::optional<ProbePins> pins = pins_for(options);
  Takeover takeover;
  if (pins) takeover = take_over(options, *pins);

  std::vector<Attempt> attempts;
  if (options.attach != AttachMode::tracepoint) attempts.push_back({true});
  if (options.attach != AttachMode::tp_btf) attempts.push_back({false});

  std::string last_error;
  for (std::size_t i = 0; i < attempts.size(); ++i) {
    const bool use_tp_btf = attempts[i].use_tp_btf;
    const char* kind = use_tp_btf ? "tp_btf/netif_receive_skb" : "tracepoint/net/netif_receive_skb";

    // Steps 3 and 4: open, configure before load.
    std::unique_ptr<netif_rx_bpf, SkeletonDeleter> skeleton(open_configured(options, use_tp_btf));
    skeleton->rodata->generation = takeover.next_generation();
    reuse_kept_maps(skeleton->obj, takeover);
    bpf_program* program = use_tp_btf ? skeleton->progs.netif_rx_btf : skeleton->progs.netif_rx_tp;

    // Step 5: load (the verifier runs here).
    if (int err = netif_rx_bpf::load(skeleton.get()); err != 0) {
      if (err == -EPERM) {
        throw ProbeError("loading the probe was refused: " + errno_text(err) + "; it " +
                         kPrivilegeHint);
      }
      last_error = load_failure(kind, err);
      if (i + 1 < attempts.size())
        log::warn("falling back to the classic tracepoint", {{"err", last_error}});
      continue;
    }

    // Step 6: attach, while the program now counting (if any) goes on.
    bpf_link* link = bpf_program__attach(program);
    if (link == nullptr) {
      last_error = attach_failure(kind, use_tp_btf, errno);
      if (i + 1 < attempts.size())
        log::warn("falling back to the classic tracepoint", {{"err", last_error}});
      continue;
    }
    // The skeleton owns the link from here: destroy() detaches it.
    if (use_tp_btf) {
      skeleton->links.netif_rx_btf = link;
    } else {
      skeleton->links.netif_rx_tp = link;
    }

    // Step 7: hand the counting over to it, and keep it.
    const bool adopted = takeover.adopted.has_value() || takeover.previous.has_value();
    const netif_rx_control counting =
        hand_over(pins ? &*pins : nullptr, skeleton->obj, bpf_program__fd(program),
                  bpf_link__fd(link), takeover);

    auto probe = std::unique_ptr<Probe>(new Probe());
    probe->set_common(options, possible_cpus);
    probe->pins_ = std::move(pins);
    probe->skeleton_ = std::move(skeleton);
    probe->program_name_ = bpf_program__name(program);
    probe->attach_mode_ = use_tp_btf ? AttachMode::tp_btf : AttachMode::tracepoint;
    probe->attach_time_seconds_ = unix_seconds_of_boot_time(counting.counting_since_ns);
    probe->adopted_ = adopted;
    if (adopted) {
      log::info("probe adopted: it goes on from the pinned counts",
                {{"program", probe->program_name_},
                 {"path", probe->pins_->where()},
                 {"attached_at", std::to_string(probe->attach_time_seconds_)}});
      return probe;
    }
    log::info("probe attached", {{"program", probe->program_name_},
                                 {"attach", kind},
                                 {"max_devices", options.max_devices},
                                 {"namespaces", options.count_all_namespaces ? "all" : "host"}});
    return probe;
  }
  throw ProbeError(last_error);
}

int Probe::device_counters_fd() const { return bpf_map__fd(skeleton_->maps.device_counters); }
int Probe::device_names_fd() const { return bpf_map__fd(skeleton_->maps.device_names); }
int Probe::probe_totals_fd() const { return bpf_map__fd(skeleton_->maps.probe_totals); }
int Probe::host_counters_fd() const { return bpf_map__fd(skeleton_->maps.host_counters); }
int Probe::netns_table_fd() const { return bpf_map__fd(skeleton_->maps.netns_table); }
int Probe::netns_slots_fd() const { return bpf_map__fd(skeleton_->maps.netns_slots); }
int Probe::carried_counters_fd() const { return bpf_map__fd(skeleton_->maps.carried_counters); }
int Probe::carried_totals_fd() const { return bpf_map__fd(skeleton_->maps.carried_totals); }
int Probe::queue_slots_fd() const { return bpf_map__fd(skeleton_->maps.queue_slots); }
int Probe::queue_counters_fd() const { return bpf_map__fd(skeleton_->maps.queue_counters); }
int Probe::steer_counters_fd() const { return bpf_map__fd(skeleton_->maps.steer_counters); }
int Probe::route_totals_fd() const { return bpf_map__fd(skeleton_->maps.route_totals); }
int Probe::program_fd() const {
  return bpf_program__fd(attach_mode_ == AttachMode::tp_btf ? skeleton_->progs.netif_rx_btf
                                                            : skeleton_->progs.netif_rx_tp);
}

}  // namespace netif_rx
