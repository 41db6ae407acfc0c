// The files shipped in dashboards/ and rules/, rendered from the mixin:
//   jsonnet -S -m <dir> mixin/render.jsonnet [--tla-code config='{ clusterLabel: "region" }']
// writes <dir>/netif-rx-exporter.json, <dir>/netif-rx-overview.json (dashboards/) and
// <dir>/netif_rx_exporter.rules.yml (rules/). `make mixin` does it into the tree.
local rulesFile = import 'lib/rules-file.libsonnet';

function(config={})
  local mixin = (import 'mixin.libsonnet') + { _config+:: config };
  {
    [name]: std.manifestJsonEx(mixin.grafanaDashboards[name], '  ')
    for name in std.objectFields(mixin.grafanaDashboards)
  } + {
    'netif_rx_exporter.rules.yml': rulesFile.render(mixin.prometheusAlerts, importstr 'alerts/rules-header.txt'),
  }
