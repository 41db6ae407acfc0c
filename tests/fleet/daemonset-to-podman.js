#!/usr/bin/env node
// Reads the manifests `helm template` rendered and writes what `podman run` needs to run the
// exporter exactly as the chart's DaemonSet does, one file per kind of setting in OUT_DIR:
//   settings.env   IMAGE, HOST_NETWORK, READ_ONLY, ALLOW_PRIVILEGE_ESCALATION, PRIVILEGED,
//                  RUN_AS_USER, RUN_AS_GROUP, CONFIG_MOUNT, PORT, HOST_PID, and BPF_MOUNT with
//                  BPF_PROPAGATION when the probe is pinned (shell-quoted assignments)
//   host-paths     "NODE_PATH CONTAINER_PATH" per read-only hostPath mount (HostToContainer)
//   args           the container's arguments, one a line
//   cap-add        the capabilities it adds, one a line (it must drop ALL)
//   config/<key>   the ConfigMap's files, mounted at CONFIG_MOUNT
//   probes         "NAME PATH SCHEME PERIOD TIMEOUT FAILURE INITIAL_DELAY" per probe
//
//   daemonset-to-podman.js TOOLS_DIR RENDERED.yaml OUT_DIR
// Fails with one line when the DaemonSet asks for something this translation does not know.
'use strict';
const fs = require('fs');
const path = require('path');

const [toolsDir, rendered, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: daemonset-to-podman.js TOOLS_DIR RENDERED.yaml OUT_DIR');
  process.exit(2);
}
const YAML = require(path.resolve(toolsDir, 'node_modules', 'yaml'));
const fail = (why) => {
  console.error(`daemonset-to-podman: FAIL: ${why}`);
  process.exit(1);
};

const docs = YAML.parseAllDocuments(fs.readFileSync(rendered, 'utf8'))
  .map((d) => d.toJSON())
  .filter(Boolean);
const daemonSets = docs.filter((d) => d.kind === 'DaemonSet');
if (daemonSets.length !== 1) fail(`expected one DaemonSet, found ${daemonSets.length}`);
const pod = daemonSets[0].spec.template.spec;
const container = pod.containers.find((c) => c.name === 'exporter');
if (!container) fail('no container named exporter');
const sc = container.securityContext || {};
if (!(sc.capabilities && (sc.capabilities.drop || []).includes('ALL'))) fail('the container does not drop ALL');
if ((container.env || []).length) fail('env is not translated (use listenOnAllInterfaces: true)');

const port = (container.ports || []).find((p) => p.name === 'metrics');
if (!port) fail('no metrics port');
const mounts = container.volumeMounts || [];
const configMount = mounts.find((m) => m.name === 'config');
if (!configMount) fail('no config volume mount');
// The pins' BPF filesystem (bpf.pinPath): the host's /sys/fs/bpf, which the test replaces by a
// BPF filesystem of its own.
const bpfMount = mounts.find((m) => m.name === 'bpf-maps');
const bpfVolume = (pod.volumes || []).find((v) => v.name === 'bpf-maps');
if (bpfMount && !(bpfVolume && bpfVolume.hostPath && bpfVolume.hostPath.path === '/sys/fs/bpf')) {
  fail('the bpf-maps mount is not the host path /sys/fs/bpf');
}
const propagation = { HostToContainer: 'rslave' }[bpfMount && bpfMount.mountPropagation];
if (bpfMount && !propagation) fail(`bpf-maps propagation ${bpfMount.mountPropagation} is not translated`);
// Every other mount: a read-only hostPath of namespace attribution.
const hostPaths = [];
for (const m of mounts.filter((mount) => mount !== configMount && mount !== bpfMount)) {
  const v = (pod.volumes || []).find((volume) => volume.name === m.name);
  if (!v || !v.hostPath || m.readOnly !== true || m.mountPropagation !== 'HostToContainer') {
    fail(`volume mount ${m.name} is not a read-only HostToContainer hostPath`);
  }
  hostPaths.push(`${v.hostPath.path} ${m.mountPath}\n`);
}
const configVolume = (pod.volumes || []).find((v) => v.name === 'config');
const configMap = docs.find((d) => d.kind === 'ConfigMap' && configVolume && configVolume.configMap &&
  d.metadata.name === configVolume.configMap.name);
if (!configMap) fail('the config volume names no rendered ConfigMap');

const q = (v) => `'${String(v).replace(/'/g, `'\\''`)}'`;
fs.mkdirSync(path.join(outDir, 'config'), { recursive: true });
fs.writeFileSync(path.join(outDir, 'settings.env'), [
  `IMAGE=${q(container.image)}`,
  `HOST_NETWORK=${q(pod.hostNetwork === true)}`,
  `READ_ONLY=${q(sc.readOnlyRootFilesystem === true)}`,
  `ALLOW_PRIVILEGE_ESCALATION=${q(sc.allowPrivilegeEscalation !== false)}`,
  `PRIVILEGED=${q(sc.privileged === true)}`,
  `RUN_AS_USER=${q(sc.runAsUser ?? '')}`,
  `RUN_AS_GROUP=${q(sc.runAsGroup ?? '')}`,
  `CONFIG_MOUNT=${q(configMount.mountPath)}`,
  `PORT=${q(port.containerPort)}`,
  `HOST_PID=${q(pod.hostPID === true)}`,
  `BPF_MOUNT=${q(bpfMount ? bpfMount.mountPath : '')}`,
  `BPF_PROPAGATION=${q(propagation || '')}`,
].join('\n') + '\n');
fs.writeFileSync(path.join(outDir, 'host-paths'), hostPaths.join(''));
fs.writeFileSync(path.join(outDir, 'args'), (container.args || []).map((a) => `${a}\n`).join(''));
fs.writeFileSync(path.join(outDir, 'cap-add'), (sc.capabilities.add || []).map((c) => `${c}\n`).join(''));
for (const [key, value] of Object.entries(configMap.data || {})) {
  fs.writeFileSync(path.join(outDir, 'config', key), value);
}
const probes = [];
for (const name of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
  const p = container[name];
  if (!p) continue;
  if (!p.httpGet || (p.httpGet.port !== 'metrics' && p.httpGet.port !== port.containerPort)) {
    fail(`${name} is not an httpGet on the metrics port`);
  }
  probes.push([name, p.httpGet.path, (p.httpGet.scheme || 'HTTP').toLowerCase(), p.periodSeconds ?? 10,
    p.timeoutSeconds ?? 1, p.failureThreshold ?? 3, p.initialDelaySeconds ?? 0].join(' '));
}
fs.writeFileSync(path.join(outDir, 'probes'), probes.map((p) => `${p}\n`).join(''));
