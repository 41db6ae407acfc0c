#!/usr/bin/env node
// Checks the Grafana dashboards in dashboards/ against the project's conventions, offline:
//   - a stable, unique uid; editable: false; a `datasource` variable and `job`/`instance`
//     variables (and `device` where panels select devices), all queried from the data source;
//   - every data panel queries ${datasource}, has a unit and at least one target; panel ids and
//     refIds are unique;
//   - a `cluster` variable (All = ".*", so series without the label match) whose label name is
//     the hidden constant `cluster_label` (like the node mixin's clusterLabel); every selector is
//     scoped by it;
//   - a per-CPU view (an aggregation that keeps `cpu` but not `instance`) only in panels repeated
//     per instance: CPU numbers of different hosts must not be added up;
//   - node_exporter's series only the known softnet/netdev counters, scoped by $node_job and
//     joined to the selected exporter instances' hosts; the overview has such a row;
//   - rates use $__rate_interval (never a hard-coded range);
//   - every metric name belongs to the exporter's metric contract;
//   - every query parses: they are written, with Grafana's variables substituted, into a rules
//     file for `promtool check rules`.
//
//   node check-dashboards.js DASHBOARD_DIR
// Needs promtool. Exits 1 with one line per problem.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { CONTRACT_METRICS, DEFAULT_SUBSTITUTIONS, dashboardQueries, metricNames, panels, substitute } =
  require('./lib/promql-sources');

// node_exporter's series that the overview sets beside the probe's, for the same node.
const NODE_EXPORTER_METRICS = new Set([
  'node_softnet_dropped_total',
  'node_softnet_times_squeezed_total',
  'node_network_receive_packets_total',
]);

const dir = process.argv[2];
if (!dir) {
  console.error('usage: check-dashboards.js DASHBOARD_DIR');
  process.exit(2);
}

const problems = [];
let checks = 0;
const check = (ok, message) => {
  checks++;
  if (!ok) problems.push(message);
};

const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
check(files.length > 0, `no dashboards in ${dir}`);
const uids = new Map();

for (const file of files) {
  let d;
  try {
    d = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  } catch (e) {
    problems.push(`${file}: not JSON: ${e.message}`);
    continue;
  }
  check(typeof d.uid === 'string' && /^[a-z0-9][a-z0-9-]{0,39}$/.test(d.uid), `${file}: uid must be a stable slug of at most 40 characters, not ${JSON.stringify(d.uid)}`);
  check(!uids.has(d.uid), `${file}: uid ${d.uid} is also the uid of ${uids.get(d.uid)}`);
  uids.set(d.uid, file);
  check(file === `${d.uid}.json`, `${file}: name the file after its uid (${d.uid}.json)`);
  check(d.editable === false, `${file}: editable must be false (provisioned dashboards are changed in the repository)`);
  check(typeof d.title === 'string' && d.title.length > 0, `${file}: no title`);
  check(d.id === undefined || d.id === null, `${file}: remove the instance-specific "id"`);
  check(Array.isArray(d.tags) && d.tags.includes('netif_rx'), `${file}: tag it netif_rx`);

  const vars = new Map(((d.templating && d.templating.list) || []).map((v) => [v.name, v]));
  const ds = vars.get('datasource');
  check(ds && ds.type === 'datasource' && ds.query === 'prometheus', `${file}: needs a variable "datasource" of type datasource for prometheus`);
  for (const name of ['job', 'instance']) {
    const v = vars.get(name);
    check(v && v.type === 'query', `${file}: needs a query variable "${name}"`);
    if (v) check(v.datasource && v.datasource.uid === '${datasource}', `${file}: variable ${name} must query \${datasource}`);
  }

  const clusterLabel = vars.get('cluster_label');
  check(clusterLabel && clusterLabel.type === 'constant' && clusterLabel.hide === 2 && clusterLabel.query === 'cluster',
    `${file}: needs a hidden constant variable "cluster_label" with the default "cluster"`);
  const cluster = vars.get('cluster');
  check(cluster && cluster.type === 'query' && cluster.includeAll && cluster.allValue === '.*' &&
    /^label_values\([^,]*, \$\{cluster_label\}\)$/.test(cluster.query && cluster.query.query),
    `${file}: needs a query variable "cluster" over the label \${cluster_label}, with All = ".*"`);
  for (const v of vars.values()) {
    if (v.type !== 'query' || v.name === 'cluster') continue;
    check(v.query.query.includes('${cluster_label}=~"$cluster"'), `${file}: variable ${v.name} is not scoped by the cluster`);
  }

  const ids = new Set();
  let usesDevice = false;
  let nodeRow = false;
  for (const p of panels(d)) {
    const label = `${file}: panel "${p.title}"`;
    check(Number.isInteger(p.id) && !ids.has(p.id), `${label}: id ${p.id} is missing or repeated`);
    ids.add(p.id);
    check(p.gridPos && ['x', 'y', 'w', 'h'].every((k) => Number.isInteger(p.gridPos[k])), `${label}: no gridPos`);
    if (p.type === 'row' || p.type === 'text') continue;
    check(p.datasource && p.datasource.uid === '${datasource}', `${label}: must query \${datasource}`);
    const unit = p.fieldConfig && p.fieldConfig.defaults && p.fieldConfig.defaults.unit;
    check(typeof unit === 'string' && unit.length > 0, `${label}: no unit (fieldConfig.defaults.unit)`);
    check(typeof p.description === 'string' && p.description.length > 0, `${label}: no description`);
    check(Array.isArray(p.targets) && p.targets.length > 0, `${label}: no targets`);
    const refIds = new Set();
    for (const t of p.targets || []) {
      check(!refIds.has(t.refId), `${label}: refId ${t.refId} repeated`);
      refIds.add(t.refId);
      check(t.datasource && t.datasource.uid === '${datasource}', `${label} ${t.refId}: must query \${datasource}`);
      const raw = t.expr || '';
      // The label-name variable made a plain name, so selectors read as {...}; strings emptied
      // where ranges are looked for (a label_replace regex may hold [0-9]).
      const expr = raw.split('${cluster_label}').join('cluster_label');
      const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""');
      check(expr.trim().length > 0, `${label} ${t.refId}: empty expression`);
      if (/\$device\b/.test(expr)) usesDevice = true;
      for (const m of withoutStrings.matchAll(/\[([^\]]*)\]/g)) {
        check(['$__rate_interval', '$__range', '$__interval'].includes(m[1]), `${label} ${t.refId}: range [${m[1]}]: use [$__rate_interval]`);
      }
      for (const m of withoutStrings.matchAll(/\b(rate|increase|irate)\s*\([^[]*\[([^\]]*)\]/g)) {
        check(m[2] === '$__rate_interval' || (m[1] === 'increase' && m[2] === '$__range'), `${label} ${t.refId}: ${m[1]} over [${m[2]}]: use [$__rate_interval]`);
      }
      for (const name of metricNames(expr)) {
        check(CONTRACT_METRICS.has(name), `${label} ${t.refId}: ${name} is not in the metric contract`);
      }
      for (const m of expr.matchAll(/\b(?:sum|max|min|avg|count|topk|bottomk)\s+by\s*\(([^)]*)\)/g)) {
        const by = m[1].split(',').map((x) => x.trim());
        if (by.includes('cpu') && !by.includes('instance')) {
          check(p.repeat === 'instance', `${label} ${t.refId}: aggregates by cpu across instances: keep instance or repeat the panel per instance`);
        }
      }
      for (const m of expr.matchAll(/\b(node_[a-z_]+)\s*\{([^}]*)\}/g)) {
        nodeRow = true;
        check(NODE_EXPORTER_METRICS.has(m[1]), `${label} ${t.refId}: ${m[1]} is not one of the node_exporter series the dashboards use`);
        check(/job=~"\$node_job"/.test(m[2]) && m[2].includes('cluster_label=~"$cluster"'), `${label} ${t.refId}: ${m[1]}{${m[2]}} is not scoped by $cluster and $node_job`);
        check(/and on \(host\)\s*group by \(host\) \(label_replace\(netif_rx_exporter_build_info\{[^}]*instance=~"\$instance"/.test(expr),
          `${label} ${t.refId}: ${m[1]} is not joined to the selected instances' hosts`);
      }
      for (const m of expr.matchAll(/\b((?:netif_rx|process)_[a-z_]+|up)\s*\{([^}]*)\}/g)) {
        check(m[2].includes('cluster_label=~"$cluster"'), `${label} ${t.refId}: ${m[1]}{${m[2]}} is not scoped by the cluster`);
      }
      if (/\bjob\b|\binstance\b/.test(expr)) {
        // every selector of the exporter's metrics is scoped by the job and instance variables
        for (const m of expr.matchAll(/\b((?:netif_rx|process)_[a-z_]+|up)\s*\{([^}]*)\}/g)) {
          check(/job=~"\$job"/.test(m[2]) && /instance=~"\$instance"/.test(m[2]), `${label} ${t.refId}: ${m[1]}{${m[2]}} is not scoped by $job and $instance`);
        }
      }
    }
  }
  if (file === 'netif-rx-overview.json') {
    check(nodeRow, `${file}: needs the row that sets the probe's view beside node_exporter's`);
    const used = new Set(panels(d).flatMap((p) => (p.targets || []).flatMap((t) => [...(t.expr || '').matchAll(/\b(node_[a-z_]+)\b/g)].map((m) => m[1]))));
    for (const name of NODE_EXPORTER_METRICS) check(used.has(name), `${file}: no panel shows ${name}`);
  }
  if (usesDevice) check(vars.get('device') && vars.get('device').type === 'query', `${file}: panels use $device but there is no device variable`);
}

// Parse every query with promtool: a rules file of recording rules, one per query.
const queries = dashboardQueries(dir);
const lines = ['groups:', '  - name: dashboard-queries', '    rules:'];
queries.forEach((q, i) => {
  const expr = substitute(q.expr, DEFAULT_SUBSTITUTIONS);
  lines.push(`      - record: dashboard:query_${i}`);
  lines.push(`        expr: ${JSON.stringify(expr)}`);
});
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboards-'));
const rulesFile = path.join(tmp, 'dashboard-queries.yml');
fs.writeFileSync(rulesFile, lines.join('\n') + '\n');
try {
  execFileSync('promtool', ['check', 'rules', rulesFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  checks++;
} catch (e) {
  if (e.code === 'ENOENT') problems.push('promtool is not installed (Debian package prometheus)');
  else problems.push(`promtool cannot parse a dashboard query:\n${(e.stdout || '').toString()}${(e.stderr || '').toString()}\n(queries in ${rulesFile})`);
} finally {
  if (!problems.length) fs.rmSync(tmp, { recursive: true, force: true });
}

if (problems.length) {
  for (const p of problems) console.error(`check-dashboards: FAIL: ${p}`);
  console.error(`check-dashboards: ${checks - problems.length} passed, ${problems.length} failed`);
  process.exit(1);
}
console.log(`check-dashboards: ${files.length} dashboards, ${queries.length} queries parse with promtool`);
console.log(`check-dashboards: ${checks} passed, 0 failed`);
