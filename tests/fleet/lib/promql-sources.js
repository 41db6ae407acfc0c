// Where the project's PromQL lives, and the metric contract it must keep to. Shared by
// check-dashboards.js (offline) and e2e-evaluate.js (against a live Prometheus). No dependencies.
'use strict';

const fs = require('fs');
const path = require('path');

// The metric contract (docs of the exporter): every name a dashboard or a rule may query.
const CONTRACT_METRICS = new Set([
  'netif_rx_packets_total',
  'netif_rx_skbs_total',
  'netif_rx_bytes_total',
  'netif_rx_busiest_cpu_packets_total',
  'netif_rx_untracked_packets_total',
  'netif_rx_removed_packets_total',
  'netif_rx_counted_packets_total',
  'netif_rx_gso_fallbacks_total',
  'netif_rx_drops_total',
  'netif_rx_backlog_drops_total',
  'netif_rx_untracked_drops_total',
  'netif_rx_napi_polls_total',
  'netif_rx_napi_polled_packets_total',
  'netif_rx_napi_budget_exhausted_total',
  'netif_rx_backlog_polls_total',
  'netif_rx_backlog_polled_packets_total',
  'netif_rx_backlog_budget_exhausted_total',
  'netif_rx_napi_untracked_polls_total',
  'netif_rx_queue_packets_total',
  'netif_rx_queue_untracked_packets_total',
  'netif_rx_steered_packets_total',
  'netif_rx_steered_untracked_packets_total',
  'netif_rx_bpf_run_time_seconds_total',
  'netif_rx_bpf_run_count_total',
  'netif_rx_bpf_recursion_misses_total',
  'netif_rx_bpf_stats_enabled',
  'netif_rx_bpf_program_info',
  'netif_rx_bpf_map_entries',
  'netif_rx_bpf_map_max_entries',
  'netif_rx_exporter_build_info',
  'netif_rx_exporter_probe_attached',
  'netif_rx_exporter_cpus',
  'netif_rx_exporter_series',
  'netif_rx_exporter_folded_devices',
  'netif_rx_exporter_poll_duration_seconds_bucket',
  'netif_rx_exporter_poll_duration_seconds_sum',
  'netif_rx_exporter_poll_duration_seconds_count',
  'netif_rx_exporter_poll_errors_total',
  'netif_rx_exporter_last_poll_timestamp_seconds',
  'netif_rx_exporter_config_last_reload_successful',
  'netif_rx_exporter_config_last_reload_success_timestamp_seconds',
  'netif_rx_netns_info',
  'netif_rx_exporter_netns_attribution_scans_total',
  'netif_rx_exporter_netns_attribution_scan_duration_seconds',
  'netif_rx_exporter_netns_attribution_unreadable_processes',
  'netif_rx_exporter_netns_attribution_dropped_total',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'process_virtual_memory_bytes',
  'process_virtual_memory_max_bytes',
  'process_start_time_seconds',
  'process_open_fds',
  'process_max_fds',
  'up',
]);

// Names of the exporter's own families (netif_rx_*, process_*) used in an expression, without
// recording-rule names (which contain colons) and label names.
function metricNames(expr) {
  const names = new Set();
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const withoutLabels = withoutStrings.replace(/\{[^}]*\}/g, '{}').replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  for (const m of withoutLabels.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const t = m[0];
    if (t.includes(':')) continue;
    if (t.startsWith('netif_rx_') || t.startsWith('process_')) names.add(t);
  }
  if (/\bup\s*\{/.test(withoutStrings)) names.add('up');
  return names;
}

// Grafana's variables, as "All" selects them, and its interval macros, as a live Prometheus with
// a short scrape interval needs them.
const DEFAULT_SUBSTITUTIONS = {
  __rate_interval: '1m',
  __interval: '15s',
  __range: '5m',
  cluster_label: 'cluster',
  cluster: '.*',
  job: '.+',
  instance: '.+',
  device: '.+',
  namespace: '.+',
  pod: '.+',
  node_job: '.+',
};

function substitute(expr, values) {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (all, a, b, c) => {
    const name = a || b || c;
    if (/^[0-9]+$/.test(name)) return all; // a regex group reference of label_replace ("$1")
    if (!(name in values)) throw new Error(`unknown variable $${name} in ${expr}`);
    return values[name];
  });
}

// Every panel, rows' collapsed panels included.
function panels(dashboard) {
  const out = [];
  for (const p of dashboard.panels || []) {
    out.push(p);
    for (const q of p.panels || []) out.push(q);
  }
  return out;
}

// label_values(SELECTOR, LABEL) as PromQL: the series that carry the label.
function variableQueryAsPromQL(query) {
  const m = /^\s*label_values\(\s*(.*)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*|\$\{[a-zA-Z_][a-zA-Z0-9_]*\})\s*\)\s*$/s.exec(query);
  if (!m) throw new Error(`unsupported variable query: ${query}`);
  return { expr: `group by (${m[2]}) (${m[1]})`, label: m[2] };
}

// All queries of the dashboards in DIR: panel targets and variable queries.
function dashboardQueries(dir) {
  const out = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const dashboard = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    for (const v of (dashboard.templating && dashboard.templating.list) || []) {
      if (v.type !== 'query') continue;
      // (constants, like cluster_label, are substituted as DEFAULT_SUBSTITUTIONS say)
      const query = typeof v.query === 'string' ? v.query : v.query && v.query.query;
      const q = variableQueryAsPromQL(query);
      out.push({ file, where: `variable $${v.name}`, expr: q.expr, instant: true, data: true });
    }
    for (const p of panels(dashboard)) {
      if (p.type === 'row' || p.type === 'text') continue;
      for (const t of p.targets || []) {
        out.push({ file, where: `panel "${p.title}" ${t.refId}`, expr: t.expr, instant: !!t.instant, data: true, panel: p, refId: t.refId });
      }
    }
  }
  return out;
}

module.exports = {
  CONTRACT_METRICS,
  DEFAULT_SUBSTITUTIONS,
  dashboardQueries,
  metricNames,
  panels,
  substitute,
  variableQueryAsPromQL,
};
