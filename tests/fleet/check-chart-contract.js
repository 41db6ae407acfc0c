#!/usr/bin/env node
// Checks the Helm chart's documents against the exporter's own configuration code, asked through
// the config_contract tool (built from the daemon's sources):
//   - every duration pattern of values.schema.json accepts exactly what the exporter's duration
//     parser accepts, on a table of inputs (units d, w, y included);
//   - every `config.*` row of the chart README states the exporter's default and, where the
//     exporter bounds a value, its range; every choice it lists is accepted by the exporter;
//   - the `config` of values.yaml and of every ci/*-values.yaml is accepted by the exporter.
//
//   check-chart-contract.js --tool CONFIG_CONTRACT --chart CHART_DIR
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.tool || !args.chart) {
  console.error('usage: check-chart-contract.js --tool CONFIG_CONTRACT --chart CHART_DIR');
  process.exit(2);
}

let passed = 0;
let failed = 0;
const pass = (what) => {
  passed++;
  console.log(`check-chart-contract: ok: ${what}`);
};
const fail = (what) => {
  failed++;
  console.error(`check-chart-contract: FAIL: ${what}`);
};

// ---- durations -------------------------------------------------------------------------------
const durations = [
  '0', '1s', '100ms', '1m30s', '2h', '1d', '2w', '1y', '1d12h', '1w2d3h4m5s6ms', '90s', '10m',
  '1h1m1s1ms', '3600000ms', '00s', // accepted by Prometheus' grammar
  '', 's', 'ms', '5', '1.5s', '-1s', '+1s', '1S', '1 s', ' 1s', '1s ', '1h1d', '1s1m', '1s1s',
  '1ms1s', '1m1m', '1us', '1ns', '1µs', 'fast', '1d-1h', '0s0', '1h30', '0x10s',
];
const parsed = execFileSync(args.tool, ['durations'], { input: durations.join('\n') + '\n' })
  .toString()
  .trim()
  .split('\n');
if (parsed.length !== durations.length) {
  fail(`config_contract answered ${parsed.length} lines for ${durations.length} durations`);
  process.exit(1);
}
const exporterAccepts = new Map(durations.map((d, i) => [d, parsed[i] === 'ok']));

const schema = JSON.parse(fs.readFileSync(path.join(args.chart, 'values.schema.json'), 'utf8'));
const durationFields = [];
const walk = (node, where) => {
  if (!node || typeof node !== 'object') return;
  if (typeof node.pattern === 'string' && /ms/.test(node.pattern)) durationFields.push({ where, node });
  for (const [key, sub] of Object.entries(node.properties || {})) walk(sub, where ? `${where}.${key}` : key);
};
walk(schema, '');
if (durationFields.length < 4) fail(`expected the schema's duration fields, found ${durationFields.length}`);
for (const { where, node } of durationFields) {
  const re = new RegExp(node.pattern);
  // The exporter's own keys must be set when given; other durations (scrape intervals) may be ""
  // for "the default".
  const required = where.startsWith('config.');
  const disagreements = [];
  for (const d of durations) {
    if (d === '' && !required) continue;
    const schemaAccepts = re.test(d) && d.length >= (node.minLength || 0);
    if (schemaAccepts !== exporterAccepts.get(d)) {
      disagreements.push(`'${d}' (schema ${schemaAccepts ? 'accepts' : 'refuses'}, exporter ${exporterAccepts.get(d) ? 'accepts' : 'refuses'})`);
    }
  }
  if (disagreements.length) fail(`${where}: the schema's pattern and the exporter disagree on ${disagreements.join(', ')}`);
  else pass(`${where}: the schema's pattern agrees with the exporter's parser on ${durations.length} inputs`);
}

// ---- README rows against the exporter's defaults and limits ------------------------------------
const facts = new Map();
for (const line of execFileSync(args.tool, ['defaults']).toString().trim().split('\n')) {
  const [key, value, min, max] = line.split(' ');
  facts.set(key, { value, min, max });
}
const readme = fs.readFileSync(path.join(args.chart, 'README.md'), 'utf8');
const rows = [...readme.matchAll(/^\| `config\.([a-z_.]+)` \| ([^|]+) \| ([^|]+) \| (.+) \|$/gm)];
if (rows.length === 0) fail('no `config.*` rows found in the chart README');

// Asks the exporter whether it accepts `config` (a YAML text) as its configuration.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-contract-'));
const accepts = (configYaml) => {
  const file = path.join(scratch, 'values.yaml');
  fs.writeFileSync(file, `config:\n${configYaml.replace(/^/gm, '  ')}\n`);
  const run = spawnSync(args.tool, ['check-values', file]);
  return { ok: run.status === 0, error: run.stderr.toString().trim() };
};
const setAt = (key, value) => {
  const parts = key.split('.');
  return parts.map((p, i) => `${'  '.repeat(i)}${p}:${i === parts.length - 1 ? ` ${value}` : ''}`).join('\n');
};

for (const [, key, type, defaultCell, description] of rows) {
  const fact = facts.get(key);
  const documented = /`([^`]+)`/.exec(defaultCell);
  if (fact) {
    if (documented && documented[1] === fact.value) pass(`config.${key}: README default ${fact.value} is the exporter's`);
    else fail(`config.${key}: README says default '${defaultCell.trim()}', the exporter's is ${fact.value}`);
    if (fact.min !== '-') {
      const range = /\(([^()]*?)\b([0-9]+[a-z]*) to ([0-9]+[a-z]*)\b/.exec(description);
      if (range && range[2] === fact.min && range[3] === fact.max) pass(`config.${key}: README range ${fact.min} to ${fact.max} is the exporter's`);
      else fail(`config.${key}: README states no range or another one than the exporter's ${fact.min} to ${fact.max}`);
    }
  } else if (!/^not set$/.test(defaultCell.trim()) || !/list/.test(type)) {
    fail(`config.${key}: the exporter reports no default for it; the README says '${defaultCell.trim()}'`);
  } else {
    const probe = accepts(setAt(key, '["^eth[0-9]+$"]'));
    if (probe.ok) pass(`config.${key}: a list of regular expressions is accepted by the exporter`);
    else fail(`config.${key}: the exporter refuses a list: ${probe.error}`);
  }
  // Choices listed in the description (`a`, `b` or `c`: ..., or `a`: ...; `b`: ...) must each be accepted.
  if (/string/.test(type)) {
    const leading = (/^((?:`[a-z_]+`(?:, | or |: ))+)/.exec(description) || ['', ''])[1];
    const choices = [
      ...new Set([...leading.matchAll(/`([a-z_]+)`/g), ...description.matchAll(/`([a-z_]+)`:/g)].map((m) => m[1])),
    ];
    for (const choice of choices) {
      const probe = accepts(setAt(key, choice));
      if (probe.ok) pass(`config.${key}: choice ${choice} is accepted by the exporter`);
      else fail(`config.${key}: the README lists ${choice}, the exporter refuses it: ${probe.error}`);
    }
    if (choices.length && accepts(setAt(key, 'no_such_choice')).ok) fail(`config.${key}: the exporter accepts any string`);
  }
}
const documentedKeys = new Set(rows.map((r) => r[1]));
for (const key of facts.keys()) {
  if (!documentedKeys.has(key)) fail(`config.${key} is an exporter key without a row in the chart README`);
}

// ---- the chart's own configurations -------------------------------------------------------------
const valuesFiles = [path.join(args.chart, 'values.yaml')];
for (const f of fs.readdirSync(path.join(args.chart, 'ci')).sort()) {
  if (f.endsWith('-values.yaml')) valuesFiles.push(path.join(args.chart, 'ci', f));
}
for (const file of valuesFiles) {
  const run = spawnSync(args.tool, ['check-values', file]);
  if (run.status === 0) pass(`${path.relative(args.chart, file)}: its config is accepted by the exporter`);
  else fail(`${path.relative(args.chart, file)}: the exporter refuses its config: ${run.stderr.toString().trim()}`);
}

fs.rmSync(scratch, { recursive: true, force: true });
console.log(`check-chart-contract: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
