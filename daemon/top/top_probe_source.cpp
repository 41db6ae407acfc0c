// The probe as top's source: the daemon's own load and poll path.
#include <cstdint>
#include <stdexcept>

#include "metrics/self_metrics.h"
#include "pipeline/counting_pipeline.h"
#include "pipeline/poller.h"
#include "pipeline/snapshot_store.h"
#include "top/top_source.h"

namespace netif_rx {
namespace {

// Top reading the probe keeps the one-liner's view: each CPU of every
// device (a snapshot holds only the per-CPU class by CPU), nothing folded.
Config every_cpu_of_every_device(Config config) {
  config.per_cpu.devices = PerCpuDevices::all;
  config.max_series = UINT32_MAX;
  return config;
}

class ProbeSource final : public TopSource {
 public:
  ProbeSource(const Config& config, const std::string& btf_path)
      // No thread: top polls on its own schedule, through poll_once().
      : pipeline_(
            build_counting_pipeline(every_cpu_of_every_device(config), btf_path, store_, metrics_)),
        netns_label_(config.namespaces == NamespaceMode::all) {}

  TopReading read() override {
    // A failed poll has logged why; a map that can't be read at all leaves
    // the previous snapshot, which shows as no traffic rather than a guess.
    pipeline_.poller->poll_once();
    TopReading reading = reading_from_snapshot(*store_.latest(), netns_label_);
    reading.taken = std::chrono::steady_clock::now();
    return reading;
  }

  std::string describe() const override { return "the probe"; }

 private:
  SelfMetrics metrics_;
  SnapshotStore store_;
  CountingPipeline pipeline_;  // after what it publishes into
  bool netns_label_ = false;
};

}  // namespace

std::unique_ptr<TopSource> make_probe_source(const Config& config, const std::string& btf_path) {
  return std::make_unique<ProbeSource>(config, btf_path);
}

}  // namespace netif_rx
