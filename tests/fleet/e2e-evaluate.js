#!/usr/bin/env node
// Evaluates every dashboard query and every rule expression of the project through the HTTP API
// of a live Prometheus that scrapes a running netif_rx_exporter (see prometheus-e2e.sh):
//   - every query parses and evaluates (status success);
//   - every dashboard data query and variable query returns at least one series;
//   - the test device shows packets, spread over CPUs with the cpu label;
//   - Prometheus loaded the rules file and evaluates every rule without error;
//   - the alerts that mean "the exporter is unhealthy" are not firing against a healthy one;
//   - the scrape target is up;
//   - the cluster variable lists the scrape's cluster label;
//   - every panel repeated per instance, evaluated as Grafana does for one instance (the test's),
//     returns series; the probe's packet rate of the test device and node_exporter's (the
//     stand-in's) for the same device on the same node agree.
//
//   node e2e-evaluate.js --prometheus URL --dashboards DIR --rules FILE --modules DIR
//        --job NAME --device NAME --instance HOST:PORT --cluster NAME
'use strict';

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');
const { DEFAULT_SUBSTITUTIONS, dashboardQueries, metricNames, substitute } = require('./lib/promql-sources');

// Families the exporter writes only once what they count has happened (a backlog drop, a packet
// whose driver recorded its RX queue, a steered packet: the test's veth records no queue and
// steers nothing): a query of them alone may find nothing in a short run on a calm host.
const ONLY_WHEN_IT_HAPPENS = new Set([
  'netif_rx_backlog_drops_total',
  'netif_rx_queue_packets_total',
  'netif_rx_steered_packets_total',
]);
const onlyWhenItHappens = (expr) => {
  const names = [...metricNames(expr)];
  return names.length > 0 && names.every((name) => ONLY_WHEN_IT_HAPPENS.has(name));
};

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const k of ['prometheus', 'dashboards', 'rules', 'modules', 'job', 'device', 'instance', 'cluster']) {
  if (!args[k]) {
    console.error(`e2e-evaluate: --${k} is required`);
    process.exit(2);
  }
}
const YAML = createRequire(path.join(path.resolve(args.modules), 'package.json'))('yaml');

// Alerts that must stay quiet while a healthy exporter is scraped.
const HEALTH_ALERTS = [
  'NetifRxExporterDown',
  'NetifRxExporterAbsent',
  'NetifRxProbeDetached',
  'NetifRxPollStale',
  'NetifRxConfigReloadFailed',
  'NetifRxPollErrors',
  'NetifRxPacketsUntracked',
  'NetifRxDeviceMapNearlyFull',
];

let passed = 0;
let failed = 0;
const ok = (m) => {
  passed++;
  console.log(`e2e: ok: ${m}`);
};
const fail = (m) => {
  failed++;
  console.error(`e2e: FAIL: ${m}`);
};

async function api(pathAndQuery) {
  const res = await fetch(`${args.prometheus}${pathAndQuery}`, { signal: AbortSignal.timeout(15000) });
  const body = await res.json().catch(() => ({ status: 'error', error: `HTTP ${res.status}, not JSON` }));
  return body;
}

async function query(expr) {
  return api(`/api/v1/query?query=${encodeURIComponent(expr)}`);
}

async function main() {
  // The target.
  const targets = await api('/api/v1/targets?state=active');
  const mine = (targets.data && targets.data.activeTargets || []).filter((t) => t.labels.job === args.job);
  if (mine.length && mine.every((t) => t.health === 'up')) ok(`target of job ${args.job} is up`);
  else fail(`target of job ${args.job} is not up: ${JSON.stringify(mine.map((t) => [t.scrapeUrl, t.health, t.lastError]))}`);

  // The test traffic is visible, per CPU.
  const dev = `job="${args.job}", device="${args.device}"`;
  const traffic = await query(`sum(rate(netif_rx_packets_total{${dev}}[30s]))`);
  const rate = traffic.status === 'success' && traffic.data.result.length ? Number(traffic.data.result[0].value[1]) : 0;
  if (rate > 0) ok(`the test device ${args.device} receives ${rate.toFixed(1)} packets/s`);
  else fail(`no packets counted on the test device ${args.device}: ${JSON.stringify(traffic)}`);
  // A veth is not of the per-CPU class by default (per_cpu.devices: physical): it has one series
  // per family and the spread summary; per-CPU series only where the configuration includes it.
  const perCpu = await query(`netif_rx_packets_total{${dev}, cpu!=""}`);
  const spread = await query(`sum(rate(netif_rx_busiest_cpu_packets_total{${dev}}[30s]))`);
  if (perCpu.status === 'success' && perCpu.data.result.length > 0) ok(`${args.device} has ${perCpu.data.result.length} per-CPU series`);
  else if (spread.status === 'success' && spread.data.result.length > 0) ok(`${args.device} is summed, with its busiest CPU's counter`);
  else fail(`${args.device} has neither per-CPU series nor netif_rx_busiest_cpu_packets_total`);
  // Per-CPU panels (cpu!="") have data only when some device of the node is of the per-CPU class
  // (a physical NIC that received packets): the test host may have none.
  const anyPerCpu = await query(`count(netif_rx_packets_total{job="${args.job}", cpu!=""})`);
  const perCpuClass = anyPerCpu.status === 'success' && anyPerCpu.data.result.length > 0;

  // Dashboards.
  for (const q of dashboardQueries(args.dashboards)) {
    const expr = substitute(q.expr, DEFAULT_SUBSTITUTIONS);
    const r = await query(expr);
    const label = `${q.file}: ${q.where}`;
    if (r.status !== 'success') {
      fail(`${label}: ${r.errorType || ''} ${r.error}\n    ${expr.replace(/\n/g, '\n    ')}`);
      continue;
    }
    const n = r.data.result.length;
    if (q.data && n === 0 && !perCpuClass && /cpu!=""/.test(q.expr)) ok(`${label}: no series (no device of the per-CPU class on this host)`);
    else if (q.data && n === 0 && onlyWhenItHappens(q.expr)) ok(`${label}: no series (${[...metricNames(q.expr)].join(', ')}: nothing of it happened in the run)`);
    else if (q.data && n === 0) fail(`${label}: returned no series\n    ${expr.replace(/\n/g, '\n    ')}`);
    else ok(`${label}: ${n} series`);
  }

  // The cluster variable lists the cluster label of the scrape.
  const clusterVar = dashboardQueries(args.dashboards).find((q) => q.where === 'variable $cluster');
  const clusters = clusterVar && (await query(substitute(clusterVar.expr, DEFAULT_SUBSTITUTIONS)));
  const clusterValues = clusters && clusters.status === 'success' ? clusters.data.result.map((s) => s.metric.cluster) : [];
  if (clusterValues.includes(args.cluster)) ok(`variable $cluster lists ${JSON.stringify(clusterValues)}`);
  else fail(`variable $cluster lists ${JSON.stringify(clusterValues)}, not the scrape's cluster ${args.cluster}`);

  // Panels repeated per instance, for the test's instance (one cluster, one device): what one
  // repeated panel shows.
  const one = {
    ...DEFAULT_SUBSTITUTIONS,
    cluster: args.cluster,
    instance: args.instance, // a regex whose dots also match themselves
    device: args.device,
    node_job: 'node',
  };
  const values = new Map();
  for (const q of dashboardQueries(args.dashboards)) {
    if (!q.panel || q.panel.repeat !== 'instance') continue;
    const expr = substitute(q.expr, one);
    const r = await query(expr);
    const label = `${q.file}: ${q.where.replace('$instance', args.instance)}`;
    const devicePerCpu = perCpu.status === 'success' && perCpu.data.result.length > 0;
    if (r.status === 'success' && r.data.result.length === 0 && !devicePerCpu && /cpu!=""/.test(q.expr)) {
      ok(`${label}: no series (${args.device} is not of the per-CPU class)`);
      continue;
    }
    if (r.status === 'success' && r.data.result.length === 0 && onlyWhenItHappens(q.expr)) {
      ok(`${label}: no series (nothing of it happened in the run)`);
      continue;
    }
    if (r.status !== 'success' || r.data.result.length === 0) {
      fail(`${label}: ${r.status === 'success' ? 'no series' : r.error}\n    ${expr.replace(/\n/g, '\n    ')}`);
      continue;
    }
    const shown = r.data.result.map((s) => `${JSON.stringify(s.metric)} ${Number(s.value[1]).toFixed(2)}`);
    ok(`${label}: ${r.data.result.length} series: ${shown.slice(0, 4).join(', ')}${shown.length > 4 ? ', ...' : ''}`);
    values.set(`${q.panel.title}/${q.refId}`, r.data.result);
  }
  const compare = [...values.keys()].find((k) => k.startsWith('Received packets on') && k.endsWith('/A'));
  const probe = compare && values.get(compare);
  const node = compare && values.get(compare.replace(/\/A$/, '/B'));
  if (probe && node && probe.length === 1 && node.length === 1) {
    const a = Number(probe[0].value[1]);
    const b = Number(node[0].value[1]);
    console.log(`e2e: panel "${compare.split('/')[0]}" for ${args.device}: probe ${a.toFixed(1)} packets/s, node_exporter ${b.toFixed(1)} packets/s`);
    if (a > 0 && b > 0 && a / b > 0.8 && a / b < 1.25) ok(`probe and node_exporter agree on ${args.device} within 20% (${(a / b).toFixed(3)})`);
    else fail(`probe (${a}) and node_exporter (${b}) disagree on ${args.device}`);
  } else {
    fail(`the probe-vs-node_exporter panel returned no single series for ${args.device} on each side`);
  }

  // Rules: every expression evaluates, Prometheus loaded and evaluates them without error.
  const file = YAML.parse(fs.readFileSync(args.rules, 'utf8'));
  const firing = new Map();
  for (const g of file.groups) {
    for (const rule of g.rules) {
      const name = rule.alert || rule.record;
      const r = await query(String(rule.expr));
      if (r.status !== 'success') {
        fail(`rule ${name}: ${r.errorType || ''} ${r.error}`);
        continue;
      }
      ok(`rule ${name}: evaluates (${r.data.result.length} series now)`);
      if (rule.alert) firing.set(rule.alert, r.data.result);
    }
  }
  const loaded = await api('/api/v1/rules');
  const groups = (loaded.data && loaded.data.groups) || [];
  const expected = file.groups.reduce((n, g) => n + g.rules.length, 0);
  const rules = groups.flatMap((g) => g.rules);
  if (rules.length === expected) ok(`Prometheus loaded all ${expected} rules`);
  else fail(`Prometheus loaded ${rules.length} rules, the file has ${expected}`);
  for (const r of rules) {
    if (r.health !== 'ok') fail(`Prometheus evaluates rule ${r.name} with health ${r.health}: ${r.lastError}`);
  }
  if (rules.length && rules.every((r) => r.health === 'ok')) ok('every rule evaluates in Prometheus with health ok');
  for (const alert of HEALTH_ALERTS) {
    const result = firing.get(alert);
    if (!result) fail(`health alert ${alert} is not in the rules file`);
    else if (result.length) fail(`${alert} would fire against a healthy exporter: ${JSON.stringify(result.map((s) => s.metric))}`);
    else ok(`${alert} is quiet against a healthy exporter`);
  }

  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(`e2e: FAIL: ${e.stack || e}`);
  process.exit(1);
});
