// The probe as top's source: the daemon's own load and poll path.
#include <stdexcept>

#include "map_reader.h"
#include "netns.h"
#include "poller.h"
#include "probe.h"
#include "self_metrics.h"
#include "snapshot_store.h"
#include "top_source.h"

namespace netif_rx {
namespace {

class ProbeSource final : public TopSource {
 public:
  ProbeSource(const Config& config, const std::string& btf_path) {
    const auto host_netns = current_netns_inum();
    if (!host_netns) throw std::runtime_error("cannot read /proc/self/ns/net: is /proc mounted?");
    ProbeOptions options;
    options.host_netns_inum = *host_netns;
    options.count_all_namespaces = config.namespaces == NamespaceMode::all;
    options.max_devices = config.max_devices;
    options.attach = config.attach;
    options.btf_path = btf_path;
    probe_ = Probe::load(options);
    netns_label_ = options.count_all_namespaces;

    MapReader reader(probe_->device_counters_fd(), probe_->device_names_fd(),
                     probe_->untracked_counters_fd(), probe_->possible_cpus());
    // No thread: top polls on its own schedule, through poll_once().
    PollerOptions poller_options{config.poll_interval, config.namespaces, *host_netns};
    poller_ = std::make_unique<Poller>(std::move(reader), poller_options, store_, metrics_);
  }

  TopReading read() override {
    // A failed poll has logged why; a map that can't be read at all leaves
    // the previous snapshot, which shows as no traffic rather than a guess.
    poller_->poll_once();
    TopReading reading = reading_from_snapshot(*store_.latest(), netns_label_);
    reading.taken = std::chrono::steady_clock::now();
    return reading;
  }

  std::string describe() const override { return "the probe"; }

 private:
  // Destroyed in reverse order: the poller before the probe it reads.
  SelfMetrics metrics_;
  SnapshotStore store_;
  std::unique_ptr<Probe> probe_;
  std::unique_ptr<Poller> poller_;
  bool netns_label_ = false;
};

}  // namespace

std::unique_ptr<TopSource> make_probe_source(const Config& config, const std::string& btf_path) {
  return std::make_unique<ProbeSource>(config, btf_path);
}

}  // namespace netif_rx
