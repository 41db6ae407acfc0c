// The exporter's metrics about itself (netif_rx_exporter_*), kept in a
// prometheus-cpp registry whose metric types are thread-safe.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "pipeline/poll_observer.h"

namespace netif_rx {

class SelfMetrics final : public PollObserver {
 public:
  SelfMetrics();

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  void set_probe_attached(bool attached) { probe_attached_.Set(attached ? 1 : 0); }
  // When the probe now counting was attached (Probe::attach_time_seconds).
  void set_probe_attach_time(double unix_seconds) { probe_attach_time_.Set(unix_seconds); }
  // 1 when the probe was adopted from pins, 0 when this exporter attached it.
  void set_probe_adopted(bool adopted) { probe_adopted_.Set(adopted ? 1 : 0); }
  void observe_poll(double seconds) override { poll_duration_.Observe(seconds); }
  void set_last_poll_timestamp(double unix_seconds) override {
    last_poll_timestamp_.Set(unix_seconds);
  }
  // reason: map_read, map_delete, name_resolution.
  void count_poll_error(const std::string& reason) override;
  // A capability a thread keeps after startup (1): "CAP_BPF" (the map
  // thread) or "CAP_SYS_PTRACE" (the attribution's thread); CAP_BPF reads 0
  // until then and where nothing is kept.
  void set_capability_retained(const std::string& capability) {
    capabilities_retained_.Add({{"capability", capability}}).Set(1);
  }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Gauge& probe_attached_;
  prometheus::Gauge& probe_attach_time_;
  prometheus::Gauge& probe_adopted_;
  prometheus::Histogram& poll_duration_;
  prometheus::Family<prometheus::Counter>& poll_errors_;
  prometheus::Gauge& last_poll_timestamp_;
  prometheus::Family<prometheus::Gauge>& capabilities_retained_;
};

}  // namespace netif_rx
