#include "probe/probe_pins.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>

#include "netif_rx.h"
#include "probe/probe_error.h"
#include "util/errno_text.h"
#include "util/log.h"

namespace netif_rx {
namespace {

constexpr const char* kLinkPin = "link";
// The attached program, pinned too: opening it by its id (from the link)
// would need CAP_SYS_ADMIN, which the exporter may not have.
constexpr const char* kProgramPin = "program";
constexpr const char* kCleanupHint = " (docs/operations.md#keeping-the-counts-across-restarts)";

std::string layout_name() { return "v" + std::to_string(NETIF_RX_PIN_LAYOUT); }

struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

// The names in `directory` (no . and ..); empty when it does not exist.
std::vector<std::string> list_directory(const std::string& directory) {
  std::vector<std::string> names;
  std::unique_ptr<DIR, DirCloser> dir(::opendir(directory.c_str()));
  if (!dir) return names;
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Removes the pins in `directory` and the directory itself.
void remove_directory(const std::string& directory) {
  for (const auto& name : list_directory(directory)) {
    const std::string path = directory + "/" + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      log::warn("cannot remove a pin", {{"path", path}, {"err", errno_text(errno)}});
  }
  if (::rmdir(directory.c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove a pin directory", {{"path", directory}, {"err", errno_text(errno)}});
}

bool is_layout_directory(const std::string& name) {
  return name.size() > 1 && name[0] == 'v' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Thrown for pins that are not this exporter's.
ProbeError foreign(const std::string& path, const std::string& what) {
  return ProbeError("refusing the pin " + path + ": " + what +
                    ", so it is not this exporter's; remove it (rm) if nothing else uses it, or "
                    "choose another --bpf.pin-path" +
                    kCleanupHint);
}

// What a map of the object would be, as the kernel describes a map.
struct MapShape {
  std::uint32_t type;
  std::uint32_t key_size;
  std::uint32_t value_size;
  std::uint32_t max_entries;
  std::uint32_t flags;
};

std::string describe(const MapShape& shape) {
  return "type " + std::to_string(shape.type) + ", key " + std::to_string(shape.key_size) +
         " bytes, value " + std::to_string(shape.value_size) + " bytes";
}

// The settings the pinned map was created with differ (nullopt: same), or
// throws when it is not this exporter's map at all.
std::optional<std::string> check_map(const bpf_map* map, int fd, const std::string& path) {
  bpf_map_info info{};
  std::uint32_t length = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd, &info, &length) != 0) throw foreign(path, "it is not a BPF map");
  const std::string expected_name = std::string(bpf_map__name(map)).substr(0, BPF_OBJ_NAME_LEN - 1);
  const MapShape pinned{info.type, info.key_size, info.value_size, info.max_entries,
                        info.map_flags};
  const MapShape wanted{static_cast<std::uint32_t>(bpf_map__type(map)), bpf_map__key_size(map),
                        bpf_map__value_size(map), bpf_map__max_entries(map),
                        bpf_map__map_flags(map)};
  if (expected_name != info.name || pinned.type != wanted.type ||
      pinned.key_size != wanted.key_size || pinned.value_size != wanted.value_size) {
    throw foreign(path, "it is map '" + std::string(info.name) + "' (" + describe(pinned) +
                            ") where this exporter has '" + expected_name + "' (" +
                            describe(wanted) + ")");
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
    if (size > value.size() || std::memcmp(value.data(), initial, size) != 0) {
      return "the probe's settings differ (namespaces, or the exporter's network namespace)";
    }
  }
  return std::nullopt;
}

}  // namespace

std::string pin_name(const bpf_map* map) {
  std::string name = bpf_map__name(map);
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

ProbePins ProbePins::open(const std::string& root) {
  PinLock lock = PinLock::acquire(root);
  for (const auto& name : list_directory(root)) {
    if (name == layout_name() || !is_layout_directory(name)) continue;
    log::warn(
        "removing the pins of another layout: this exporter cannot adopt them and starts "
        "counting afresh",
        {{"path", root + "/" + name}, {"layout", layout_name()}});
    remove_directory(root + "/" + name);
  }
  return ProbePins(std::move(lock), root, root + "/" + layout_name());
}

std::vector<std::string> ProbePins::entries() const { return list_directory(directory_); }

std::optional<AdoptedLink> ProbePins::adopt(bpf_object* object,
                                            const std::vector<std::string>& program_names) {
  const std::vector<std::string> found = entries();
  if (found.empty()) return std::nullopt;

  std::set<std::string> expected{kLinkPin, kProgramPin};
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) expected.insert(pin_name(map));
  for (const auto& name : found) {
    if (expected.count(name) == 0)
      throw foreign(path_of(name), "this exporter pins no such name in " + directory_);
  }
  const auto start_fresh = [this](const std::string& why) {
    log::warn("replacing the pinned probe: the counts start from zero",
              {{"path", directory_}, {"why", why}});
    remove();
    return std::nullopt;
  };
  const auto present = [&found](const std::string& name) {
    return std::find(found.begin(), found.end(), name) != found.end();
  };

  // Every pin is checked before anything is reused or removed: one that is
  // not this exporter's stops the start, whatever else is there.
  std::vector<std::pair<bpf_map*, UniqueFd>> maps;
  std::optional<std::string> differs;
  bpf_object__for_each_map(map, object) {
    const std::string path = path_of(pin_name(map));
    if (!present(pin_name(map))) {
      if (!differs) differs = "incomplete pins (an exporter stopped while pinning)";
      continue;
    }
    UniqueFd fd(bpf_obj_get(path.c_str()));
    if (!fd.valid()) {
      throw ProbeError("cannot open the pinned map " + path + ": " + errno_text(errno) +
                       "; it needs the privileges that loading the probe needs");
    }
    if (auto why = check_map(map, fd.get(), path); why && !differs) differs = std::move(why);
    maps.emplace_back(map, std::move(fd));
  }
  if (!present(kLinkPin) || !present(kProgramPin))
    return start_fresh(differs.value_or("incomplete pins (no link or program)"));

  const std::string link_path = path_of(kLinkPin);
  std::unique_ptr<bpf_link, decltype(&bpf_link__destroy)> link(bpf_link__open(link_path.c_str()),
                                                               bpf_link__destroy);
  if (!link)
    throw foreign(link_path, "it cannot be opened as a BPF link (" + errno_text(errno) + ")");
  bpf_link_info link_info{};
  std::uint32_t length = sizeof(link_info);
  if (bpf_obj_get_info_by_fd(bpf_link__fd(link.get()), &link_info, &length) != 0)
    throw foreign(link_path, "it is not a BPF link");
  const std::string program_path = path_of(kProgramPin);
  UniqueFd program(bpf_obj_get(program_path.c_str()));
  bpf_prog_info program_info{};
  length = sizeof(program_info);
  if (!program.valid() || bpf_obj_get_info_by_fd(program.get(), &program_info, &length) != 0)
    throw foreign(program_path, "it cannot be opened as a BPF program");
  if (program_info.id != link_info.prog_id && !differs)
    differs = "the pinned program is not the one the pinned link attaches";
  const std::string program_name = program_info.name;
  if (std::find(program_names.begin(), program_names.end(), program_name) == program_names.end()) {
    const bool ours = program_name == "netif_rx_btf" || program_name == "netif_rx_tp";
    if (!ours) throw foreign(link_path, "it attaches program '" + program_name + "'");
    if (!differs)
      differs = "the attach mode changed (the pinned link attaches " + program_name + ")";
  }
  if (differs) {
    maps.clear();
    link.reset();
    return start_fresh(*differs);
  }

  for (auto& [adopted, fd] : maps) {
    if (int err = bpf_map__reuse_fd(adopted, fd.get()); err != 0) {
      throw ProbeError("reusing the pinned map " + path_of(pin_name(adopted)) +
                       " failed: " + errno_text(err));
    }
  }
  return AdoptedLink{link.release(), std::move(program), program_name};
}

void ProbePins::pin(bpf_object* object, int program_fd, bpf_link* link) {
  if (::mkdir(directory_.c_str(), 0700) != 0 && errno != EEXIST) {
    throw ProbeError("cannot create " + directory_ + ": " + errno_text(errno));
  }
  // The maps and the program first, the link last: a directory without its link is an
  // incomplete pinning, replaced by the next exporter.
  const auto fail = [this](const std::string& what, int err) {
    const std::string message = "pinning " + what + " failed: " + errno_text(err);
    remove();
    return ProbeError(message);
  };
  bpf_map* map = nullptr;
  bpf_object__for_each_map(map, object) {
    const std::string path = path_of(pin_name(map));
    if (bpf_obj_pin(bpf_map__fd(map), path.c_str()) != 0) throw fail(path, errno);
  }
  if (bpf_obj_pin(program_fd, path_of(kProgramPin).c_str()) != 0)
    throw fail(path_of(kProgramPin), errno);
  if (int err = bpf_link__pin(link, path_of(kLinkPin).c_str()); err != 0) {
    throw fail(path_of(kLinkPin) + (err == -EINVAL ? " (the classic tracepoint's link can be "
                                                     "pinned from Linux 5.15 on)"
                                                   : ""),
               err);
  }
}

void ProbePins::remove() {
  remove_directory(directory_);
  if (list_directory(root_).empty() && ::rmdir(root_.c_str()) != 0 && errno != ENOENT)
    log::warn("cannot remove the pin directory", {{"path", root_}, {"err", errno_text(errno)}});
}

}  // namespace netif_rx
