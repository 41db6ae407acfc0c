#!/usr/bin/env node
// A stand-in for node_exporter in the end-to-end test, which has no node_exporter binary: it
// serves, on loopback, the three families the overview dashboard sets beside the probe's, under
// node_exporter's names and labels, read from the same kernel files node_exporter reads:
//   node_softnet_dropped_total{cpu}, node_softnet_times_squeezed_total{cpu}
//     /proc/net/softnet_stat: one line per CPU, hexadecimal; column 2 dropped, column 3
//     time_squeeze, column 13 the CPU's number (older kernels: the line's index);
//   node_network_receive_packets_total{device}
//     /sys/class/net/<device>/statistics/rx_packets.
//
//   node-exporter-standin.js PORT
'use strict';

const fs = require('fs');
const http = require('http');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error('usage: node-exporter-standin.js PORT');
  process.exit(2);
}

function softnet() {
  const lines = fs.readFileSync('/proc/net/softnet_stat', 'utf8').trim().split('\n');
  return lines.map((line, index) => {
    const cols = line.trim().split(/\s+/).map((h) => parseInt(h, 16));
    return { cpu: cols.length >= 13 ? cols[12] : index, dropped: cols[1], squeezed: cols[2] };
  });
}

function receivePackets() {
  const out = [];
  for (const device of fs.readdirSync('/sys/class/net').sort()) {
    try {
      const value = fs.readFileSync(`/sys/class/net/${device}/statistics/rx_packets`, 'utf8').trim();
      if (/^[0-9]+$/.test(value)) out.push({ device, value });
    } catch {
      // the device went away between the listing and the read
    }
  }
  return out;
}

function exposition() {
  const rows = softnet();
  const lines = [
    '# HELP node_softnet_dropped_total Number of dropped packets',
    '# TYPE node_softnet_dropped_total counter',
    ...rows.map((r) => `node_softnet_dropped_total{cpu="${r.cpu}"} ${r.dropped}`),
    '# HELP node_softnet_times_squeezed_total Number of times processing packets ran out of quota',
    '# TYPE node_softnet_times_squeezed_total counter',
    ...rows.map((r) => `node_softnet_times_squeezed_total{cpu="${r.cpu}"} ${r.squeezed}`),
    '# HELP node_network_receive_packets_total Network device statistic receive_packets.',
    '# TYPE node_network_receive_packets_total counter',
    ...receivePackets().map((r) => `node_network_receive_packets_total{device="${r.device}"} ${r.value}`),
  ];
  return lines.join('\n') + '\n';
}

http
  .createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end('not found\n');
      return;
    }
    let body;
    try {
      body = exposition();
    } catch (e) {
      res.writeHead(500).end(`${e.message}\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4' }).end(body);
  })
  .listen(port, '127.0.0.1', () => console.log(`node-exporter-standin: serving on 127.0.0.1:${port}`));
process.on('SIGTERM', () => process.exit(0));
