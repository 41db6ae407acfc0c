#!/usr/bin/env node
// Validates the output of `helm template` for the netif-rx-exporter chart:
//   1. every document parses as strict YAML (no duplicate keys) and names a known kind;
//   2. every object matches its Kubernetes or prometheus-operator schema (kubernetes-models,
//      @kubernetes-models/prometheus-operator), and has no field the schema does not define;
//   3. policy: least privilege and probes (see checkPolicy);
//   4. one source of truth: the dashboard ConfigMaps carry the files of dashboards/ byte for byte,
//      and the PrometheusRule carries the rules of rules/ (unchanged with --rules-unchanged).
//
//   node validate-manifests.js --modules DIR --rules FILE --dashboards DIR --case NAME
//        [--rules-unchanged] [--rules-out FILE] [--runbook-base URL]
//        [--cluster-label NAME] < rendered.yaml
//
// --modules is the directory where setup-tools.sh installed the npm packages. --rules-out writes
// the PrometheusRule's groups as a Prometheus rules file, for `promtool check rules`.
// Exits 1 with one line per problem.
'use strict';

const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

function parseArgs(argv) {
  const args = { rulesUnchanged: false };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--modules') args.modules = next();
    else if (a === '--rules') args.rules = next();
    else if (a === '--dashboards') args.dashboards = next();
    else if (a === '--case') args.caseName = next();
    else if (a === '--rules-out') args.rulesOut = next();
    else if (a === '--rules-unchanged') args.rulesUnchanged = true;
    else if (a === '--runbook-base') args.runbookBase = next();
    else if (a === '--cluster-label') args.clusterLabel = next();
    else throw new Error(`unknown argument ${a}`);
  }
  for (const k of ['modules', 'rules', 'dashboards', 'caseName']) {
    if (!args[k]) throw new Error(`--${k === 'caseName' ? 'case' : k} is required`);
  }
  return args;
}

const args = parseArgs(process.argv);
const requireFromTools = createRequire(path.join(path.resolve(args.modules), 'package.json'));
const YAML = requireFromTools('yaml');

// ---- schemas --------------------------------------------------------------------------------

// The validator of each kind the chart may render: the generated ajv function behind the model.
const SCHEMAS = {
  'v1/ConfigMap': 'kubernetes-models/_schemas/IoK8sApiCoreV1ConfigMap',
  'v1/Pod': 'kubernetes-models/_schemas/IoK8sApiCoreV1Pod',
  'v1/Service': 'kubernetes-models/_schemas/IoK8sApiCoreV1Service',
  'v1/ServiceAccount': 'kubernetes-models/_schemas/IoK8sApiCoreV1ServiceAccount',
  'apps/v1/DaemonSet': 'kubernetes-models/_schemas/IoK8sApiAppsV1DaemonSet',
  'networking.k8s.io/v1/NetworkPolicy': 'kubernetes-models/_schemas/IoK8sApiNetworkingV1NetworkPolicy',
  'monitoring.coreos.com/v1/ServiceMonitor':
    '@kubernetes-models/prometheus-operator/_schemas/MonitoringCoreosComV1ServiceMonitor',
  'monitoring.coreos.com/v1/PodMonitor':
    '@kubernetes-models/prometheus-operator/_schemas/MonitoringCoreosComV1PodMonitor',
  'monitoring.coreos.com/v1/PrometheusRule':
    '@kubernetes-models/prometheus-operator/_schemas/MonitoringCoreosComV1PrometheusRule',
};

function schemaFor(apiVersion, kind) {
  const id = `${apiVersion}/${kind}`;
  const module = SCHEMAS[id];
  if (!module) return null;
  // Absolute path: the packages' "exports" do not list their generated _schemas.
  const [pkg, file] = module.startsWith('@') ? [module.split('/').slice(0, 2).join('/'), module.split('/').slice(2).join('/')] : [module.split('/')[0], module.split('/').slice(1).join('/')];
  return require(path.join(path.resolve(args.modules), 'node_modules', pkg, `${file}.js`)).validate;
}

// Unknown fields: the generated validators read every property their schema defines, and
// enumerate the keys of maps (labels, annotations, data, ...). So a key of an object that was
// neither read nor enumerated during validation is a field the schema does not know, which the
// API server would drop (or reject under strict field validation).
function instrument(value, where, objects) {
  if (Array.isArray(value)) return value.map((v, i) => instrument(v, `${where}[${i}]`, objects));
  if (value === null || typeof value !== 'object') return value;
  const info = { where, keys: Object.keys(value), read: new Set(), enumerated: false };
  objects.push(info);
  const copy = {};
  for (const key of info.keys) copy[key] = instrument(value[key], `${where}.${key}`, objects);
  return new Proxy(copy, {
    get(target, key, receiver) {
      if (typeof key === 'string') info.read.add(key);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string') info.read.add(key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      info.enumerated = true;
      return Reflect.ownKeys(target);
    },
  });
}

function schemaErrors(doc, label) {
  const validate = schemaFor(doc.apiVersion, doc.kind);
  if (!validate) return [`${label}: no schema for ${doc.apiVersion} ${doc.kind}: add it to SCHEMAS`];
  const objects = [];
  const data = instrument(doc, '', objects);
  const problems = [];
  if (!validate(data)) {
    for (const e of validate.errors) {
      problems.push(`${label}: schema: ${e.instancePath || '/'} ${e.keyword} ${JSON.stringify(e.params)}`);
    }
  }
  for (const o of objects) {
    if (o.enumerated) continue;
    for (const key of o.keys) {
      if (!o.read.has(key)) problems.push(`${label}: unknown field ${o.where ? o.where.slice(1) + '.' : ''}${key}`);
    }
  }
  return problems;
}

// The detector must catch a misspelt field in a core object and in a CRD, and pass the correct
// spelling: if a new version of the models validates differently, fail here, not silently.
function selfTest() {
  const good = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'x', labels: { a: 'b' } },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: {
        metadata: { labels: { a: 'b' } },
        spec: { containers: [{ name: 'c', image: 'i', securityContext: { readOnlyRootFilesystem: true } }] },
      },
    },
  };
  const bad = JSON.parse(JSON.stringify(good));
  bad.spec.template.spec.containers[0].securityContext = { readOnlyRootFileSystem: true };
  const goodMonitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: 'x' },
    spec: { selector: { matchLabels: { a: 'b' } }, endpoints: [{ port: 'metrics' }] },
  };
  const badMonitor = JSON.parse(JSON.stringify(goodMonitor));
  badMonitor.spec.endpoints[0].portName = 'metrics';
  const wrongType = JSON.parse(JSON.stringify(good));
  wrongType.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = 'yes';
  const failures = [];
  if (schemaErrors(good, 'selftest').length) failures.push(`a valid DaemonSet was rejected: ${schemaErrors(good, 'selftest')}`);
  if (schemaErrors(goodMonitor, 'selftest').length) failures.push(`a valid ServiceMonitor was rejected: ${schemaErrors(goodMonitor, 'selftest')}`);
  if (!schemaErrors(bad, 'selftest').some((p) => p.includes('unknown field spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem'))) {
    failures.push('a misspelt DaemonSet field was not reported');
  }
  if (!schemaErrors(badMonitor, 'selftest').some((p) => p.includes('unknown field spec.endpoints[0].portName'))) {
    failures.push('a misspelt ServiceMonitor field was not reported');
  }
  if (!schemaErrors(wrongType, 'selftest').some((p) => p.includes('schema:'))) failures.push('a wrong type was not reported');
  if (failures.length) {
    for (const f of failures) console.error(`validate-manifests: self-test: ${f}`);
    console.error('validate-manifests: the schema check cannot be trusted with these model versions');
    process.exit(2);
  }
}

// ---- policy ---------------------------------------------------------------------------------

const PROBE_CAPABILITIES = ['BPF', 'PERFMON'];

function checkContainerSecurity(c, label, problems) {
  const sc = c.securityContext || {};
  if (sc.privileged === true) problems.push(`${label}: container ${c.name} is privileged`);
  if (sc.allowPrivilegeEscalation !== false) problems.push(`${label}: container ${c.name} does not set allowPrivilegeEscalation: false`);
  if (sc.readOnlyRootFilesystem !== true) problems.push(`${label}: container ${c.name} has a writable root filesystem`);
  const drop = (sc.capabilities && sc.capabilities.drop) || [];
  if (!drop.includes('ALL')) problems.push(`${label}: container ${c.name} does not drop ALL capabilities`);
}

// What namespace attribution (namespaces: all) may see of the node, read-only and nothing else:
// the runtimes' task bundles and kubelet's pod log folders (hostPaths), the node's processes and
// its /proc/1/mountinfo (hostPID). The chart's README says why.
const ATTRIBUTION_HOST_PATHS = [
  '/run/containerd/io.containerd.runtime.v2.task',
  '/run/k3s/containerd/io.containerd.runtime.v2.task',
  '/run/containers/storage/overlay-containers',
  '/var/log/pods',
];

function attributionOn(config) {
  return !!config && config.namespaces === 'all' && !(config.attribution && config.attribution.enabled === false);
}

// The host path allowed whatever the namespaces setting: the BPF filesystem where the probe is pinned (bpf.pinPath), mounted
// at the same path with HostToContainer propagation (as Cilium's bpf-maps volume), never
// Bidirectional, only in the exporter container.
function isPinVolume(v) {
  return v.name === 'bpf-maps' && v.hostPath && v.hostPath.path === '/sys/fs/bpf';
}

function checkPinMounts(spec, volume, label, problems) {
  for (const c of [...(spec.initContainers || []), ...(spec.containers || [])]) {
    for (const m of c.volumeMounts || []) {
      if (m.name !== volume.name) continue;
      if (c.name !== 'exporter') problems.push(`${label}: container ${c.name} mounts ${volume.name}`);
      if (m.mountPath !== '/sys/fs/bpf') problems.push(`${label}: ${volume.name} mounted at ${m.mountPath}, not /sys/fs/bpf`);
      if (m.mountPropagation !== 'HostToContainer') {
        problems.push(`${label}: ${volume.name} mounted with propagation ${m.mountPropagation || 'None'}, not HostToContainer`);
      }
    }
  }
}

// `attribution`: whether the pod may have the attribution's host paths and hostPID.
function checkPodSpec(spec, label, problems, attribution = false) {
  if (spec.hostPID && !attribution) problems.push(`${label}: hostPID without namespace attribution`);
  if (spec.hostIPC) problems.push(`${label}: hostIPC`);
  for (const v of spec.volumes || []) {
    if (!v.hostPath) continue;
    if (isPinVolume(v)) {
      checkPinMounts(spec, v, label, problems);
      continue;
    }
    if (!attribution || !ATTRIBUTION_HOST_PATHS.includes(v.hostPath.path)) {
      problems.push(`${label}: hostPath volume ${v.name} (${v.hostPath.path})`);
      continue;
    }
    for (const c of [...(spec.initContainers || []), ...(spec.containers || [])]) {
      for (const m of (c.volumeMounts || []).filter((mount) => mount.name === v.name)) {
        if (m.readOnly !== true || m.mountPath !== v.hostPath.path || m.mountPropagation === 'Bidirectional') {
          problems.push(`${label}: hostPath ${v.hostPath.path} is not mounted read-only at the same path in ${c.name}`);
        }
      }
    }
  }
  if (spec.automountServiceAccountToken !== false) problems.push(`${label}: the service account token is mounted`);
  for (const c of [...(spec.initContainers || []), ...(spec.containers || [])]) checkContainerSecurity(c, label, problems);
}

function checkExporter(ds, config, label, problems) {
  const spec = ds.spec.template.spec;
  checkPodSpec(spec, label, problems, attributionOn(config));
  if (spec.hostNetwork !== true) problems.push(`${label}: hostNetwork is not true (device names must resolve in the host namespace)`);
  if (!ds.spec.updateStrategy || ds.spec.updateStrategy.type !== 'RollingUpdate') {
    problems.push(`${label}: updateStrategy is not RollingUpdate`);
  }
  const surge = ds.spec.updateStrategy && ds.spec.updateStrategy.rollingUpdate && ds.spec.updateStrategy.rollingUpdate.maxSurge;
  if (surge !== undefined && String(surge) !== '0' && String(surge) !== '0%') problems.push(`${label}: maxSurge ${surge} with a host port`);
  if (!(spec.tolerations || []).length) problems.push(`${label}: no tolerations: tainted nodes would not be observed`);
  const annotations = (ds.spec.template.metadata && ds.spec.template.metadata.annotations) || {};
  if (!/^[0-9a-f]{64}$/.test(annotations['checksum/config'] || '')) problems.push(`${label}: no checksum/config annotation on the pod template`);

  const exporter = spec.containers.find((c) => c.name === 'exporter');
  if (!exporter) {
    problems.push(`${label}: no container named exporter`);
    return;
  }
  const sc = exporter.securityContext || {};
  const add = ((sc.capabilities && sc.capabilities.add) || []).slice().sort();
  const mode = (config && config.bpf_stats && config.bpf_stats.mode) || 'sampled';
  const expected = [...PROBE_CAPABILITIES, ...(mode === 'off' ? [] : ['SYS_ADMIN'])].sort();
  if (JSON.stringify(add) !== JSON.stringify(expected)) {
    problems.push(`${label}: capabilities add [${add}] but bpf_stats.mode=${mode} needs exactly [${expected}]`);
  }
  const port = (exporter.ports || []).find((p) => p.name === 'metrics');
  if (!port) problems.push(`${label}: no container port named metrics`);
  const probe = (name, pathWanted) => {
    const p = exporter[name];
    if (!p || !p.httpGet) return problems.push(`${label}: no ${name}`);
    if (p.httpGet.path !== pathWanted) problems.push(`${label}: ${name} checks ${p.httpGet.path}, not ${pathWanted}`);
    if (p.httpGet.port !== 'metrics') problems.push(`${label}: ${name} does not check the metrics port`);
  };
  probe('livenessProbe', '/-/healthy');
  probe('readinessProbe', '/-/ready');
  probe('startupProbe', '/-/ready');
  const configArg = (exporter.args || []).find((a) => a.startsWith('--config.file='));
  if (!configArg) problems.push(`${label}: no --config.file argument`);
  const listen = (exporter.args || []).find((a) => a.startsWith('--web.listen-address='));
  if (!listen || !listen.endsWith(`:${port && port.containerPort}`)) problems.push(`${label}: --web.listen-address does not match the container port`);
}

function checkMonitor(doc, label, problems) {
  const endpoints = doc.kind === 'ServiceMonitor' ? doc.spec.endpoints : doc.spec.podMetricsEndpoints;
  for (const e of endpoints || []) {
    const node = (e.relabelings || []).some(
      (r) => r.targetLabel === 'node' && (r.sourceLabels || []).includes('__meta_kubernetes_pod_node_name'),
    );
    if (!node) problems.push(`${label}: an endpoint does not set the node label from __meta_kubernetes_pod_node_name`);
  }
  if (doc.spec.jobLabel !== 'app.kubernetes.io/name') problems.push(`${label}: jobLabel is not app.kubernetes.io/name`);
}

// JSON with every object's keys sorted: equal for equal YAML whatever the key order.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// ---- main -----------------------------------------------------------------------------------

selfTest();

const problems = [];
const input = fs.readFileSync(0, 'utf8');
const docs = [];
for (const d of YAML.parseAllDocuments(input, { uniqueKeys: true, prettyErrors: true })) {
  if (d.errors.length) {
    for (const e of d.errors) problems.push(`YAML: ${e.message}`);
    continue;
  }
  const value = d.toJS();
  if (value === null || value === undefined) continue;
  docs.push(value);
}
if (!docs.length) problems.push('helm template rendered nothing');

const byKind = (kind) => docs.filter((d) => d && d.kind === kind);
const seen = new Set();
for (const doc of docs) {
  if (!doc.apiVersion || !doc.kind || !doc.metadata || !doc.metadata.name) {
    problems.push(`an object without apiVersion, kind or metadata.name: ${JSON.stringify(doc).slice(0, 120)}`);
    continue;
  }
  const label = `${doc.kind}/${doc.metadata.name}`;
  const id = `${doc.kind}/${doc.metadata.namespace || ''}/${doc.metadata.name}`;
  if (seen.has(id)) problems.push(`${label}: rendered twice`);
  seen.add(id);
  problems.push(...schemaErrors(doc, label));
}

// The exporter's configuration, as the ConfigMap carries it.
const daemonSets = byKind('DaemonSet');
if (daemonSets.length !== 1) problems.push(`expected one DaemonSet, found ${daemonSets.length}`);
for (const ds of daemonSets) {
  const volumes = ds.spec.template.spec.volumes || [];
  const configVolume = volumes.find((v) => v.name === 'config');
  const cm = configVolume && byKind('ConfigMap').find((c) => c.metadata.name === configVolume.configMap.name);
  let config = null;
  if (!cm || !cm.data || typeof cm.data['config.yaml'] !== 'string') {
    problems.push(`DaemonSet/${ds.metadata.name}: its config volume does not name a rendered ConfigMap with config.yaml`);
  } else {
    try {
      config = YAML.parse(cm.data['config.yaml'], { uniqueKeys: true }) || {};
    } catch (e) {
      problems.push(`ConfigMap/${cm.metadata.name}: config.yaml is not YAML: ${e.message}`);
    }
  }
  checkExporter(ds, config, `DaemonSet/${ds.metadata.name}`, problems);
}
for (const pod of byKind('Pod')) {
  const hook = pod.metadata.annotations && pod.metadata.annotations['helm.sh/hook'];
  if (hook !== 'test') problems.push(`Pod/${pod.metadata.name}: a bare Pod that is not a helm test hook`);
  checkPodSpec(pod.spec, `Pod/${pod.metadata.name}`, problems);
  const selector = (byKind('Service')[0] || { spec: { selector: {} } }).spec.selector || {};
  const labels = pod.metadata.labels || {};
  if (Object.keys(selector).length && Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    problems.push(`Pod/${pod.metadata.name}: the Service selects the test pod`);
  }
}
for (const m of [...byKind('ServiceMonitor'), ...byKind('PodMonitor')]) checkMonitor(m, `${m.kind}/${m.metadata.name}`, problems);

// Dashboards: the ConfigMaps carry the files unchanged.
const dashboardFiles = fs.readdirSync(args.dashboards).filter((f) => f.endsWith('.json'));
const dashboardMaps = byKind('ConfigMap').filter((c) => c.data && Object.keys(c.data).some((k) => k.endsWith('.json')));
if (dashboardMaps.length) {
  const carried = new Map();
  for (const cm of dashboardMaps) {
    const labels = cm.metadata.labels || {};
    if (!Object.values(labels).length || !Object.keys(labels).some((k) => /dashboard/.test(k))) {
      problems.push(`ConfigMap/${cm.metadata.name}: no Grafana sidecar label`);
    }
    for (const [k, v] of Object.entries(cm.data)) carried.set(k, v);
  }
  for (const f of dashboardFiles) {
    const source = fs.readFileSync(path.join(args.dashboards, f), 'utf8');
    if (!carried.has(f)) problems.push(`dashboard ${f} is not in any ConfigMap`);
    else if (args.clusterLabel) {
      // Re-serialised with another cluster_label: the same dashboard but for that constant.
      const expected = JSON.parse(source);
      for (const v of expected.templating.list) if (v.name === 'cluster_label') v.query = args.clusterLabel;
      if (canonical(JSON.parse(carried.get(f))) !== canonical(expected)) problems.push(`dashboard ${f} is not dashboards/${f} with cluster_label ${args.clusterLabel}`);
    } else if (carried.get(f).replace(/\n$/, '') !== source.replace(/\n$/, '')) problems.push(`dashboard ${f} differs from dashboards/${f}`);
  }
  for (const k of carried.keys()) if (!dashboardFiles.includes(k)) problems.push(`ConfigMap carries ${k}, which is not in dashboards/`);
}

// Rules: the PrometheusRule is built from the rules file.
const source = YAML.parse(fs.readFileSync(args.rules, 'utf8'));
const sourceAlerts = source.groups.flatMap((g) => g.rules.filter((r) => r.alert).map((r) => r.alert));
const rules = byKind('PrometheusRule');
if (rules.length > 1) problems.push(`expected at most one PrometheusRule, found ${rules.length}`);
for (const pr of rules) {
  const label = `PrometheusRule/${pr.metadata.name}`;
  const groups = pr.spec.groups;
  if (args.rulesUnchanged) {
    if (canonical(groups) !== canonical(source.groups)) problems.push(`${label}: with default values its groups differ from ${args.rules}`);
  }
  const alerts = groups.flatMap((g) => g.rules.filter((r) => r.alert));
  for (const a of alerts) {
    if (!sourceAlerts.includes(a.alert)) problems.push(`${label}: alert ${a.alert} is not in ${args.rules}`);
    for (const k of ['summary', 'description']) if (!(a.annotations && a.annotations[k])) problems.push(`${label}: ${a.alert} has no ${k}`);
    if (!(a.labels && a.labels.severity)) problems.push(`${label}: ${a.alert} has no severity`);
    const runbook = (a.annotations && a.annotations.runbook_url) || '';
    if (!/^https:\/\/\S+#/.test(runbook) || !runbook.endsWith(`#${a.alert.toLowerCase()}`)) {
      problems.push(`${label}: ${a.alert} has runbook_url '${runbook}', not <base>#${a.alert.toLowerCase()}`);
    }
    if (args.runbookBase && !runbook.startsWith(`${args.runbookBase}#`)) {
      problems.push(`${label}: ${a.alert} has runbook_url '${runbook}', not on the base ${args.runbookBase}`);
    }
  }
  // The selector of the rules must be the job the chart's monitors produce.
  const monitors = [...byKind('ServiceMonitor'), ...byKind('PodMonitor')];
  const jobs = new Set();
  for (const m of monitors) {
    const owner = m.kind === 'ServiceMonitor' ? byKind('Service')[0] : daemonSets[0] && daemonSets[0].spec.template;
    const value = owner && owner.metadata && owner.metadata.labels && owner.metadata.labels[m.spec.jobLabel];
    if (value) jobs.add(value);
  }
  for (const job of jobs) {
    const exprs = groups.flatMap((g) => g.rules.map((r) => String(r.expr)));
    if (!exprs.some((e) => e.includes(`job="${job}"`))) {
      problems.push(`${label}: the monitors scrape job "${job}" but no rule selects job="${job}" (set prometheusRule.selector)`);
    }
  }
  for (const g of groups) {
    for (const r of g.rules) {
      if (r.record && r.record.endsWith(':threshold') && !/^vector\([0-9.e+-]+\)\s*$/.test(String(r.expr))) {
        problems.push(`${label}: threshold ${r.record} is not vector(<number>): ${r.expr}`);
      }
    }
  }
  if (args.rulesOut) fs.writeFileSync(args.rulesOut, YAML.stringify({ groups }));
}

const summary = docs.map((d) => d && d.kind).filter(Boolean).sort().join(' ');
if (problems.length) {
  for (const p of problems) console.error(`validate-manifests: ${args.caseName}: FAIL: ${p}`);
  process.exit(1);
}
console.log(`validate-manifests: ${args.caseName}: ok: ${docs.length} objects (${summary})`);
