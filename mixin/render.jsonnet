// The files shipped in dashboards/ and rules/, rendered from the mixin:
//   jsonnet mixin/render.jsonnet [--tla-code config='{ clusterLabel: "region" }']
// gives { dashboards: { <file name>: <dashboard> }, rules: <the rules file's text> }, which
// mixin/render.sh writes as <root>/dashboards/*.json and <root>/rules/netif_rx_exporter.rules.yml.
// The dashboards are values, written by render.sh: std.manifestJsonEx, written in jsonnet, takes
// seconds per dashboard where jsonnet's own output takes milliseconds.
local rulesFile = import 'lib/rules-file.libsonnet';

function(config={})
  local mixin = (import 'mixin.libsonnet') + { _config+:: config };
  {
    dashboards: mixin.grafanaDashboards,
    rules: rulesFile.render(mixin.prometheusAlerts, importstr 'alerts/rules-header.txt'),
  }
