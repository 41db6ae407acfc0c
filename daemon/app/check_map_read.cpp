#include "app/check_map_read.h"

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/privilege_model.h"
#include "probe/map_reader.h"
#include "probe/probe.h"
#include "probe/probe_maps.h"
#include "sys/privileges.h"

namespace netif_rx {
namespace {

// Every map read the poll does, from a new thread holding only `kept`.
std::vector<std::string> read_maps_holding(const Probe& probe, std::optional<int> kept) {
  std::vector<std::string> errors;
  std::thread reader([&] {
    const int err = kept ? keep_only_capability(*kept) : drop_this_thread_capabilities();
    if (err != 0) {
      errors.push_back("setting the reader thread's capabilities failed: errno " +
                       std::to_string(err));
      return;
    }
    MapReader maps(maps_of(probe), probe.possible_cpus());
    for (const auto& e : maps.read_device_counters().errors) errors.push_back(e.describe());
    for (const auto& e : maps.read_untracked().errors) errors.push_back(e.describe());
    for (const auto& e : maps.read_device_names().errors) errors.push_back(e.describe());
  });
  reader.join();
  return errors;
}

}  // namespace

CheckResult check_map_read(const Probe& probe) {
  const std::string what = "the maps can be read as the exporter reads them after startup";
  PrivilegeModel model;
  try {
    model = decide_privilege_model(probe.device_counters_fd());
  } catch (const std::runtime_error& e) {
    return {false, true, what, e.what()};
  }
  const auto errors = read_maps_holding(probe, model.kept);
  if (!errors.empty()) {
    return {false, true, what + ": " + errors.front(),
            "the polling thread holds " +
                (model.kept ? capability_name(*model.kept) : std::string("no capability")) +
                " after startup; grant CAP_BPF (systemd: AmbientCapabilities=CAP_BPF; Kubernetes: "
                "capabilities.add: [BPF]) or run as root"};
  }
  if (!model.kept) {
    return {true, true,
            what +
                ": from a thread without capabilities; no thread keeps a capability after "
                "startup",
            ""};
  }
  return {true, true,
          what + ": the polling thread keeps " + capability_name(*model.kept) +
              " after startup, every other thread none; " + model.reason,
          ""};
}

}  // namespace netif_rx
