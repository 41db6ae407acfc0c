// The Grafana dashboards: their JSON lives next to this file and is edited as JSON (in Grafana,
// exported, or by hand); the mixin applies _config to it. Every query selects the cluster with
// ${cluster_label}, a hidden constant variable that _config.clusterLabel sets, and the job and
// instance with the dashboard's variables, whose queries take the configured extra matchers.
local withMatchers(query, matchers) =
  if matchers == '' then query
  else std.strReplace(
    std.strReplace(query, '{${cluster_label}=~"$cluster"', '{${cluster_label}=~"$cluster", ' + matchers),
    'netif_rx_exporter_build_info, ${cluster_label})',
    'netif_rx_exporter_build_info{' + matchers + '}, ${cluster_label})'
  );

local configure(dashboard, config) =
  local variable(v) =
    if v.name == 'cluster_label' then v { query: config.clusterLabel }
    else if std.member(['cluster', 'job', 'instance', 'device', 'namespace', 'pod', 'node_job'], v.name) then
      local matchers = if v.name == 'node_job' then config.nodeExporterSelector
      else config.netifRxDashboardSelector;
      v {
        definition: withMatchers(super.definition, matchers),
        query+: { query: withMatchers(super.query, matchers) },
      }
    else v;
  dashboard {
    templating+: { list: [variable(v) for v in super.list] },
  };

{
  grafanaDashboards+:: {
    'netif-rx-exporter.json': configure(import 'netif-rx-exporter.json', $._config),
    'netif-rx-overview.json': configure(import 'netif-rx-overview.json', $._config),
    'netif-rx-receive-path.json': configure(import 'netif-rx-receive-path.json', $._config),
  },
}
