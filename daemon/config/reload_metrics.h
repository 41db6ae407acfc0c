// netif_rx_exporter_config_last_reload_successful and
// netif_rx_exporter_config_last_reload_success_timestamp_seconds, as
// Prometheus itself exports them (set at startup too).
#pragma once

#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>

namespace netif_rx {

class ReloadMetrics {
 public:
  ReloadMetrics()
      : registry_(std::make_shared<prometheus::Registry>()),
        successful_(prometheus::BuildGauge()
                        .Name("netif_rx_exporter_config_last_reload_successful")
                        .Help("1 when the last configuration (re)load succeeded, else 0.")
                        .Register(*registry_)
                        .Add({})),
        success_timestamp_(prometheus::BuildGauge()
                               .Name("netif_rx_exporter_config_last_reload_success_timestamp_"
                                     "seconds")
                               .Help("Unix time of the last successful configuration (re)load.")
                               .Register(*registry_)
                               .Add({})) {}

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  void record(bool ok) {
    successful_.Set(ok ? 1 : 0);
    if (ok) success_timestamp_.SetToCurrentTime();
  }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Gauge& successful_;
  prometheus::Gauge& success_timestamp_;
};

}  // namespace netif_rx
