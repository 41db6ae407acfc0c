// The NAPI poll counter as the daemon runs it: attached beside the probe,
// read by the poller into each snapshot.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "config/config.h"
#include "napi/napi_probe.h"
#include "pipeline/poller.h"

namespace netif_rx {

class PollObserver;

// Loads and attaches the NAPI poll counter for `config` (its namespaces
// mode) in the namespace `host_netns_inum`; null, with a warning logged
// once, when loading failed: the exporter goes on without the NAPI families.
std::unique_ptr<NapiProbe> attach_napi_counter(const Config& config, std::uint32_t host_netns_inum,
                                               const std::string& btf_path);

// The poller's source of NAPI polls for `probe` (borrowed: it must outlive
// the poller). A failed map read is counted in `metrics` as map_read.
NapiSource napi_source(const NapiProbe& probe, PollObserver& metrics);

}  // namespace netif_rx
