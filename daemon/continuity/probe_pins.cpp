#include "continuity/probe_pins.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>

#include "continuity/bpffs_pin_store.h"
#include "continuity/probe_control.h"
#include "continuity/probe_error.h"
#include "continuity/program_maps.h"
#include "continuity/service_pin_store.h"
#include "util/errno_text.h"
#include "util/log.h"
#include "util/test_hook.h"

namespace netif_rx {
namespace {

constexpr const char* kLinkPin = "link";
// The attached program, pinned too: opening it by its id (from the link)
// would need CAP_SYS_ADMIN, which the exporter may not have.
constexpr const char* kProgramPin = "program";
constexpr const char* kCleanupHint = " (docs/operations.md#keeping-the-counts-across-restarts)";

// Thrown for pins that are not this exporter's.
ProbeError foreign(const PinStore& store, const std::string& name, const std::string& what) {
  return ProbeError("refusing the pin " + store.where(name) + ": " + what +
                    ", so it is not this exporter's; " + store.remedy() + kCleanupHint);
}

// What a map of the object would be, as the kernel describes a map.
struct MapShape {
  std::uint32_t type;
  std::uint32_t key_size;
  std::uint32_t value_size;
  std::uint32_t max_entries;
  std::uint32_t flags;
};

// Whether the pins hold two programs' parts: an exporter that died between
// the renames of its re-pin (the read-only data, the program, then the link).
// Their maps are the ones both counted in, so they are adopted; neither
// program counts (the control map names the dead exporter's), which
// generation 0 makes the next start say.
bool pins_of_two_programs(int program_fd, std::uint32_t program_id, std::uint32_t linked_id,
                          std::uint32_t rodata_id) {
  if (program_id != linked_id) return true;
  const std::vector<std::uint32_t> used = map_ids_of(program_fd);
  return rodata_id != 0 && std::find(used.begin(), used.end(), rodata_id) == used.end();
}

std::string describe(const MapShape& shape) {
  return "type " + std::to_string(shape.type) + ", key " + std::to_string(shape.key_size) +
         " bytes, value " + std::to_string(shape.value_size) + " bytes";
}

// The settings the pinned map was created with differ (nullopt: same), or
// throws when it is not this exporter's map at all.
// `generation`: set to the `ignored` bytes of the pinned read-only data.
std::optional<std::string> check_map(const bpf_map* map, int fd, const PinStore& store,
                                     const std::string& name,
                                     std::pair<std::size_t, std::size_t> ignored,
                                     std::optional<std::uint64_t>& generation) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd, &info, &length) != 0)
    throw foreign(store, name, "it is not a BPF map");
  const std::string expected_name = std::string(bpf_map__name(map)).substr(0, BPF_OBJ_NAME_LEN - 1);
  const MapShape pinned{info.type, info.key_size, info.value_size, info.max_entries,
                        info.map_flags};
  const MapShape wanted{static_cast<std::uint32_t>(bpf_map__type(map)), bpf_map__key_size(map),
                        bpf_map__value_size(map), bpf_map__max_entries(map),
                        bpf_map__map_flags(map)};
  if (expected_name != info.name || pinned.type != wanted.type ||
      pinned.key_size != wanted.key_size || pinned.value_size != wanted.value_size) {
    throw foreign(store, name,
                  "it is map '" + std::string(info.name) + "' (" + describe(pinned) +
                      ") where this exporter has '" + expected_name + "' (" + describe(wanted) +
                      ")");
  }
  if (pinned.max_entries != wanted.max_entries) {
    return "map " + expected_name + " has " + std::to_string(pinned.max_entries) +
           " entries where this configuration wants " + std::to_string(wanted.max_entries) +
           " (max_devices changed)";
  }
  if (pinned.flags != wanted.flags) return "map " + expected_name + " has other flags";
  // The probe's read-only settings (the exporter's namespace, namespaces:
  // all): the pinned program runs with the pinned values.
  std::size_t size = 0;
  const void* initial = bpf_map__initial_value(const_cast<bpf_map*>(map), &size);
  if (bpf_map__is_internal(map) && initial != nullptr) {
    std::vector<char> value(info.value_size);
    const std::uint32_t key = 0;
    if (bpf_map_lookup_elem(fd, &key, value.data()) != 0) {
      return "reading " + expected_name + " failed: " + errno_text(errno);
    }
    std::vector<char> wanted_value(static_cast<const char*>(initial),
                                   static_cast<const char*>(initial) + size);
    const auto [offset, ignored_size] = ignored;
    if (ignored_size == sizeof(std::uint64_t) && offset + ignored_size <= value.size() &&
        std::string_view(bpf_map__name(map)).ends_with(".rodata")) {
      std::uint64_t pinned_generation = 0;
      std::memcpy(&pinned_generation, value.data() + offset, sizeof pinned_generation);
      generation = pinned_generation;
    }
    if (offset + ignored_size <= std::min(size, value.size())) {
      std::copy_n(value.begin() + static_cast<std::ptrdiff_t>(offset), ignored_size,
                  wanted_value.begin() + static_cast<std::ptrdiff_t>(offset));
    }
    if (size > value.size() || std::memcmp(value.data(), wanted_value.data(), size) != 0) {
      return "the probe's settings differ (namespaces, or the exporter's network namespace)";
    }
  }
  return std::nullopt;
}

// Every map of the object is pinned in the layout's directory but the control
// map (kept beside the layouts) and the handover's view of the old program's
// totals (wired anew at each start, see reuse_kept_maps()).
bool pinned_in_layout(const bpf_map* map) {
  return !is_control_map_name(bpf_map__name(map)) &&
         std::strcmp(bpf_map__name(map), kHandoverTotalsMapName) != 0;
}

}  // namespace

std::string pin_name(const bpf_map* map) {
  std::string name = bpf_map__name(map);
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

ProbePins ProbePins::open(const std::string& root) { return ProbePins(BpffsPinStore::open(root)); }

ProbePins ProbePins::in_service_store() { return ProbePins(ServicePinStore::open()); }

UniqueFd ProbePins::open_control() {
  UniqueFd control = store_->open_control();
  if (!control.valid()) {
    if (errno == ENOENT) return control;
    throw ProbeError("cannot open the probe's control map " + store_->control_where() + ": " +
                     errno_text(errno) +
                     "; it needs the privileges that loading the probe needs, and a BPF map "
                     "there (" +
                     store_->remedy() + kCleanupHint + ")");
  }
  if (const std::string mismatch = control_map_mismatch(control.get()); !mismatch.empty()) {
    throw ProbeError("refusing the pin " + store_->control_where() + ": " + mismatch +
                     ", so it is not this exporter's; " + store_->remedy() + kCleanupHint);
  }
  return control;
}

namespace {

// Throws when a pin of `found` is none that this exporter makes.
void refuse_unknown_names(bpf_object* object, const PinStore& store,
                          const std::vector<std::string>& found) {
  std::set<std::string> expected{kLinkPin, kProgramPin};
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    if (pinned_in_layout(map)) expected.insert(pin_name(map));
  }
  for (const auto& name : found) {
    if (expected.count(name) == 0)
      throw foreign(store, name, "this exporter pins no such name in " + store.where());
  }
}

}  // namespace

std::optional<AdoptedProbe> ProbePins::adopt(bpf_object* object,
                                             const std::vector<std::string>& program_names,
                                             std::pair<std::size_t, std::size_t> generation_bytes) {
  PinStore& store = *store_;
  const std::vector<std::string> found = store.names();
  if (found.empty()) return std::nullopt;

  refuse_unknown_names(object, store, found);
  const auto start_fresh = [&store](const std::string& why) {
    log::warn("replacing the pinned probe: the counts start from zero",
              {{"path", store.where()}, {"why", why}});
    store.remove();
    return std::nullopt;
  };
  const auto present = [&found](const std::string& name) {
    return std::find(found.begin(), found.end(), name) != found.end();
  };

  // Every pin is checked before anything is reused or removed: one that is
  // not this exporter's stops the start, whatever else is there.
  std::vector<std::pair<std::string, UniqueFd>> maps;
  std::optional<std::string> differs;
  std::optional<std::uint64_t> generation;
  std::uint32_t rodata_id = 0;  // of the pinned read-only data
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    if (!pinned_in_layout(map)) continue;
    const std::string name = pin_name(map);
    if (!present(name)) {
      if (!differs) differs = "incomplete pins (an exporter stopped while pinning)";
      continue;
    }
    UniqueFd fd = store.open_fd(name);
    if (!fd.valid()) {
      throw ProbeError("cannot open the pinned map " + store.where(name) + ": " +
                       errno_text(errno) +
                       "; it needs the privileges that loading the probe needs");
    }
    if (auto why = check_map(map, fd.get(), store, name, generation_bytes, generation);
        why && !differs)
      differs = std::move(why);
    if (bpf_map__is_internal(map) && std::string_view(bpf_map__name(map)).ends_with(".rodata"))
      rodata_id = id_of_map(fd.get());
    maps.emplace_back(name, std::move(fd));
  }
  if (!present(kLinkPin) || !present(kProgramPin))
    return start_fresh(differs.value_or("incomplete pins (no link or program)"));

  UniqueFd link = store.open_fd(kLinkPin);
  if (!link.valid())
    throw foreign(store, kLinkPin, "it cannot be opened (" + errno_text(errno) + ")");
  bpf_link_info link_info{};
  std::uint32_t length = sizeof(link_info);
  if (bpf_obj_get_info_by_fd(link.get(), &link_info, &length) != 0)
    throw foreign(store, kLinkPin, "it is not a BPF link");
  UniqueFd program = store.open_fd(kProgramPin);
  bpf_prog_info program_info{};
  length = sizeof(program_info);
  if (!program.valid() || bpf_obj_get_info_by_fd(program.get(), &program_info, &length) != 0)
    throw foreign(store, kProgramPin, "it cannot be opened as a BPF program");
  if (pins_of_two_programs(program.get(), program_info.id, link_info.prog_id, rodata_id))
    generation = 0;
  const std::string program_name = program_info.name;
  if (std::find(program_names.begin(), program_names.end(), program_name) == program_names.end()) {
    const bool ours = program_name == "netif_rx_btf" || program_name == "netif_rx_tp";
    if (!ours) throw foreign(store, kLinkPin, "it attaches program '" + program_name + "'");
    if (!differs)
      differs = "the attach mode changed (the pinned link attaches " + program_name + ")";
  }
  if (differs) {
    maps.clear();
    link.reset();
    return start_fresh(*differs);
  }

  return AdoptedProbe{std::move(link), std::move(program), program_name, std::move(maps),
                      generation};
}

void ProbePins::reuse(bpf_object* object, const AdoptedProbe& adopted) {
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    if (bpf_map__is_internal(map)) continue;  // the new program's own settings
    const std::string name = pin_name(map);
    const auto found = std::find_if(adopted.maps.begin(), adopted.maps.end(),
                                    [&name](const auto& pinned) { return pinned.first == name; });
    if (found == adopted.maps.end()) continue;
    if (int err = bpf_map__reuse_fd(map, found->second.get()); err != 0)
      throw ProbeError("reusing the pinned map " + name + " failed: " + errno_text(err));
  }
}

void ProbePins::pin(bpf_object* object, int program_fd, int link_fd, int control_fd,
                    bool control_kept) {
  // A BPF link only: before Linux 5.15 the classic tracepoint is attached
  // through a perf event, whose fd no store can give back as a link (bpffs
  // refuses it; systemd's store would take it, and every next start would
  // refuse it as not this exporter's). Counting goes on, not kept.
  bpf_link_info link_info{};
  std::uint32_t info_size = sizeof link_info;
  if (bpf_obj_get_info_by_fd(link_fd, &link_info, &info_size) != 0) {
    log::warn(
        "the probe is not kept across restarts: the classic tracepoint's link can be kept "
        "from Linux 5.15 on",
        {{"store", store_->where(kLinkPin)}, {"err", errno_text(errno)}});
    return;
  }
  // The maps and the program first, the link last: pins without their link
  // are an incomplete pinning, replaced by the next exporter.
  try {
    if (!control_kept) store_->keep_control(control_fd);
    bpf_map* map = nullptr;
    bpf_object__for_each_map(map, object) {
      if (pinned_in_layout(map)) store_->keep(pin_name(map), bpf_map__fd(map));
    }
    store_->keep(kProgramPin, program_fd);
    store_->keep(kLinkPin, link_fd);
  } catch (const ProbeError&) {
    store_->remove();
    throw;
  }
}

void ProbePins::replace(bpf_object* object, int program_fd, int link_fd) {
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    // The new program's own settings; the control map is kept apart.
    if (bpf_map__is_internal(map) && pinned_in_layout(map))
      store_->replace(pin_name(map), bpf_map__fd(map));
  }
  test_hook("handover.repin_after_rodata");
  store_->replace(kProgramPin, program_fd);
  test_hook("handover.repin_after_program");
  if (test_fail("handover.repin_link"))
    throw ProbeError("re-pinning " + store_->where(kLinkPin) + " failed (test failure)");
  store_->replace(kLinkPin, link_fd);
}

void ProbePins::restore(bpf_object* object, const AdoptedProbe& adopted) {
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    // The adopted maps themselves are never replaced, nor the control map.
    if (!bpf_map__is_internal(map) || !pinned_in_layout(map)) continue;
    const std::string name = pin_name(map);
    const auto found = std::find_if(adopted.maps.begin(), adopted.maps.end(),
                                    [&name](const auto& pinned) { return pinned.first == name; });
    if (found != adopted.maps.end()) store_->replace(name, found->second.get());
  }
  store_->replace(kProgramPin, adopted.program.get());
  store_->replace(kLinkPin, adopted.link.get());
}

}  // namespace netif_rx
