#!/usr/bin/env bash
# End to end with a real Prometheus: runs the exporter as root on a loopback port, sends test
# traffic through a veth pair into the host namespace, has Debian's Prometheus scrape the exporter
# (with the project's rules loaded) on another loopback port, then evaluates every dashboard query
# and every rule expression through Prometheus' HTTP API (e2e-evaluate.js), and the join of
# netif_rx_netns_info (the exporter counts every namespace; the test namespace is a fake pod's).
#
# There is no node_exporter here: node-exporter-standin.js serves the three node_exporter families
# the overview dashboard sets beside the probe's (softnet drops and squeezes per CPU, received
# packets per device), read from the same kernel files node_exporter reads, so the dashboard's
# node_exporter row is evaluated against real counters of this machine. Both scrape jobs carry a
# cluster label, as in a multi-cluster setup, for the dashboards' cluster variable.
#
#   prometheus-e2e.sh EXPORTER_BINARY TOOLS_DIR
#
# TOOLS_DIR is where setup-tools.sh installed the npm packages (for the YAML parser). Needs root
# (BPF, network namespaces). Everything it creates (namespace, veth, processes, temporary files) is
# removed on exit, also on failure or interruption. Set NETIF_RX_E2E_KEEP=1 to keep the temporary
# directory (logs, Prometheus data) for a post-mortem.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
exporter=${1:?usage: prometheus-e2e.sh EXPORTER_BINARY TOOLS_DIR}
tools=${2:?usage: prometheus-e2e.sh EXPORTER_BINARY TOOLS_DIR}
job=netif-rx-exporter
# How long traffic flows and Prometheus scrapes before the queries run.
warmup_seconds=${NETIF_RX_E2E_WARMUP:-25}

die() {
  echo "prometheus-e2e: FAIL: $*" >&2
  exit 1
}

[[ $(id -u) -eq 0 ]] || die "must run as root: the exporter loads BPF and the test creates a network namespace"
[[ -x "$exporter" ]] || die "exporter binary '$exporter' does not exist or is not executable (build the netif_rx_exporter target)"
for tool in prometheus curl ip node ss; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian packages: prometheus curl iproute2 nodejs)"
done
[[ -d "$tools/node_modules/yaml" ]] || die "$tools/node_modules/yaml is missing: run setup-tools.sh $tools first"

work=$(mktemp -d /tmp/netif-rx-e2e.XXXXXX)
netns="nrx-e2e-$$"
veth_host="nrxh$$"
veth_peer="nrxp$$"
exporter_pid=""
standin_pid=""
prometheus_pid=""
traffic_pid=""

stop() { # PID NAME
  local pid=$1
  [[ -n "$pid" ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && { echo "prometheus-e2e: $2 ignored SIGTERM; killing it" >&2; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  wait "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop "$traffic_pid" "traffic"
  stop "$prometheus_pid" "prometheus"
  stop "$standin_pid" "node-exporter-standin"
  stop "$exporter_pid" "netif_rx_exporter"
  ip link del "$veth_host" 2>/dev/null || true
  ip netns del "$netns" 2>/dev/null || true
  if ((rc != 0)); then
    for log in exporter prometheus; do
      [[ -s "$work/$log.log" ]] || continue
      echo "---- last lines of the $log log ----" >&2
      tail -n 30 "$work/$log.log" >&2
    done
  fi
  if [[ "${NETIF_RX_E2E_KEEP:-0}" == 1 ]]; then
    echo "prometheus-e2e: kept $work" >&2
  else
    rm -rf "$work"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A free TCP port on loopback, from a range far from well-known exporter ports.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((20000 + RANDOM % 20000))
    if [[ -z "$(ss -Htln "sport = :$port")" ]]; then
      echo "$port"
      return 0
    fi
  done
  die "no free TCP port found on loopback"
}

wait_http() { # URL WHAT PID SECONDS
  local url=$1 what=$2 pid=$3 deadline=$((SECONDS + $4))
  while ((SECONDS < deadline)); do
    kill -0 "$pid" 2>/dev/null || die "$what exited before $url answered"
    curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
    sleep 0.5
  done
  die "$what did not answer $url within $4 s"
}

# 1. A veth pair whose host end is in the host namespace: packets sent from the test namespace are
#    received, and counted, on the host end. TEST-NET-2 addresses, which route nowhere else.
ip netns add "$netns"
ip link add "$veth_host" type veth peer name "$veth_peer" netns "$netns"
ip addr add 198.51.100.1/30 dev "$veth_host"
ip link set "$veth_host" up
# GRO on the receiving end gives the veth a NAPI context, which veth uses for what a sender
# without TSO sends: the NAPI panels have its polls.
ethtool -K "$veth_host" gro on >/dev/null
ip netns exec "$netns" ethtool -K "$veth_peer" tso off tx-udp-segmentation off >/dev/null
ip -n "$netns" addr add 198.51.100.2/30 dev "$veth_peer"
ip -n "$netns" link set lo up
ip -n "$netns" link set "$veth_peer" up

# 2. The exporter, on loopback only, counting every namespace. The test namespace is a pod's for
#    the attribution: a containerd sandbox bundle (as the CRI plugin writes it) names its path, so
#    netif_rx_netns_info names it and the dashboards' pod panels (the join) have data.
exporter_port=$(free_port)
mkdir -p "$work/k8s.io/e2e-sandbox"
cat >"$work/k8s.io/e2e-sandbox/config.json" <<EOF
{"ociVersion":"1.1.0","annotations":{"io.kubernetes.cri.container-type":"sandbox",
"io.kubernetes.cri.sandbox-name":"traffic-0","io.kubernetes.cri.sandbox-namespace":"e2e",
"io.kubernetes.cri.sandbox-uid":"0b2c3d4e-1111-4222-8333-944455566677"},
"linux":{"namespaces":[{"type":"network","path":"/run/netns/$netns"}]}}
EOF
cat >"$work/exporter.yaml" <<EOF
poll_interval: 1s
namespaces: all
per_cpu:
  include: ['$veth_host']
attribution:
  bundle_roots: [$work/k8s.io]
  pod_logs_root: $work/pods
EOF
"$exporter" --config.file="$work/exporter.yaml" --web.listen-address="127.0.0.1:$exporter_port" \
  --log.level=info >"$work/exporter.log" 2>&1 &
exporter_pid=$!
wait_http "http://127.0.0.1:$exporter_port/-/ready" "netif_rx_exporter" "$exporter_pid" 30
echo "prometheus-e2e: exporter ready on 127.0.0.1:$exporter_port (pid $exporter_pid)"

# 3. Traffic: bounded bursts of UDP datagrams to a closed port of the host end (the host's port
#    unreachable replies go back into the test namespace), for the warm-up and the evaluation.
traffic_seconds=$((warmup_seconds + 90))
# shellcheck disable=SC2016 # expanded by the inner bash
ip netns exec "$netns" bash -c '
  end=$((SECONDS + '"$traffic_seconds"'))
  while ((SECONDS < end)); do
    for _ in {1..40}; do echo netif-rx-e2e 2>/dev/null >/dev/udp/198.51.100.1/9 || true; done
    sleep 0.05
  done' &
traffic_pid=$!

# 4. The node_exporter stand-in, on loopback.
standin_port=$(free_port)
while [[ "$standin_port" == "$exporter_port" ]]; do standin_port=$(free_port); done
node "$here/node-exporter-standin.js" "$standin_port" >"$work/standin.log" 2>&1 &
standin_pid=$!
wait_http "http://127.0.0.1:$standin_port/metrics" "node-exporter-standin" "$standin_pid" 15

# 5. Prometheus, on loopback, with the project's rules, scraping every second.
prometheus_port=$(free_port)
while [[ "$prometheus_port" == "$exporter_port" || "$prometheus_port" == "$standin_port" ]]; do
  prometheus_port=$(free_port)
done
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $root/rules/netif_rx_exporter.rules.yml
scrape_configs:
  - job_name: $job
    static_configs:
      - targets: ["127.0.0.1:$exporter_port"]
        labels: {cluster: e2e}
  - job_name: node
    static_configs:
      - targets: ["127.0.0.1:$standin_port"]
        labels: {cluster: e2e}
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$prometheus_port" --log.level=warn >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!
wait_http "http://127.0.0.1:$prometheus_port/-/ready" "prometheus" "$prometheus_pid" 60
echo "prometheus-e2e: prometheus ready on 127.0.0.1:$prometheus_port (pid $prometheus_pid); traffic for ${warmup_seconds}s"

sleep "$warmup_seconds"
kill -0 "$exporter_pid" 2>/dev/null || die "netif_rx_exporter exited during the test"
kill -0 "$traffic_pid" 2>/dev/null || die "the traffic generator stopped early"

# 6. Every dashboard query and every rule, through the HTTP API.
node "$here/e2e-evaluate.js" --prometheus "http://127.0.0.1:$prometheus_port" \
  --dashboards "$root/dashboards" --rules "$root/rules/netif_rx_exporter.rules.yml" \
  --modules "$tools" --job "$job" --device "$veth_host" --instance "127.0.0.1:$exporter_port" \
  --cluster e2e

# 7. The join of the metric contract (docs/metrics.md, "Who owns a namespace"): the test
#    namespace's packets under its pod's name.
join='sum by (instance, namespace, pod) (rate(netif_rx_packets_total[1m]) * on (instance, netns) group_left (namespace, pod) netif_rx_netns_info{kind="pod"})'
result=$(curl -fsS --max-time 10 "http://127.0.0.1:$prometheus_port/api/v1/query" --data-urlencode "query=$join")
echo "prometheus-e2e: $join"
echo "prometheus-e2e: => $result"
grep -q '"namespace":"e2e","pod":"traffic-0"' <<<"$result" || die "the join did not name the test namespace's pod"
