#include "metrics/snapshot_exposition.h"

#include <prometheus/text_serializer.h>

#include "metrics/bpf_exposition.h"
#include "metrics/drops_text.h"
#include "metrics/napi_text.h"
#include "metrics/netns_info_exposition.h"
#include "metrics/route_text.h"
#include "metrics/snapshot_text.h"

namespace netif_rx {

std::vector<prometheus::MetricFamily> snapshot_families(const Snapshot& snapshot,
                                                        const RenderOptions& options,
                                                        const NetnsInfoTable* owners) {
  auto families = render_snapshot(snapshot, options, owners);
  for (auto& family : render_bpf_stats(snapshot.bpf)) families.push_back(std::move(family));
  if (owners && options.netns_label) {
    for (auto& family : render_netns_info(snapshot, *owners)) families.push_back(std::move(family));
  }
  return families;
}

void write_snapshot_exposition(std::string& out, const Snapshot& snapshot,
                               const RenderOptions& options, const NetnsInfoTable* owners) {
  write_snapshot_text(out, snapshot, options, owners);
  write_drops_text(out, snapshot.drops, options);
  write_napi_text(out, snapshot.napi, options);
  write_route_text(out, snapshot.routes, options);
  out.append(prometheus::TextSerializer().Serialize(render_bpf_stats(snapshot.bpf)));
  if (owners && options.netns_label) write_netns_info_text(out, snapshot, *owners);
}

}  // namespace netif_rx
