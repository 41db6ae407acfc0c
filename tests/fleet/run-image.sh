#!/usr/bin/env bash
# The image, run with podman exactly as the chart's DaemonSet runs it: the chart is rendered with
# its default values (only the port moved to a free one), and the container gets the rendered
# image, arguments, ConfigMap file, host network, capabilities (drop ALL, add the chart's),
# read-only root filesystem, no privilege escalation, user 0, the node's PID namespace and the
# read-only host paths of namespace attribution. Then veth traffic in a test
# namespace and exact counts on /metrics (the veth summed, as the chart's default keeps per-CPU
# series for physical devices), then the rendered startup, readiness and
# liveness probes, performed as the kubelet would (period, timeout, failure threshold). The chart
# pins the probe: the host's /sys/fs/bpf becomes a BPF filesystem of the test's own, and a second
# container started after the first stopped (podman stop) goes on from the same counts.
#   run-image.sh TOOLS_DIR      (TOOLS_DIR: the fleet tools, with Helm)
# The image is built before (ctest fleet_image_build: make image with the binary of the package
# that the ctest package_deb built, so that nothing is compiled again).
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
tools=$(cd "${1:?usage: run-image.sh TOOLS_DIR}" && pwd)
source "$source_dir/tests/lib/checks.sh"
require_root
require_tools podman node curl ip
podman=(podman --runtime runc --cgroup-manager cgroupfs)

port=$(free_port)
"$tools/helm/helm" template netif-rx "$source_dir/deploy/helm/netif-rx-exporter" \
  --set web.port="$port" >"$work/rendered.yaml" || { echo "FAIL: helm template failed" >&2; exit 1; }
node "$here/daemonset-to-podman.js" "$tools" "$work/rendered.yaml" "$work/spec" || exit 1
source "$work/spec/settings.env"
mapfile -t args <"$work/spec/args"
mapfile -t caps <"$work/spec/cap-add"
echo "rendered: image $IMAGE, args ${args[*]}, capabilities ${caps[*]}"
expect "the chart's image is what make image built" "${podman[@]}" image exists "$IMAGE"
expect "the chart runs it on the host network" test "$HOST_NETWORK" = true
expect "the chart makes the root filesystem read-only" test "$READ_ONLY" = true
expect "the chart forbids privilege escalation, not privileged" test "$ALLOW_PRIVILEGE_ESCALATION-$PRIVILEGED" = false-false

run=(--rm -d --name "netif-rx-test-$$" --network host --user "$RUN_AS_USER:$RUN_AS_GROUP"
  --cap-drop ALL --security-opt no-new-privileges --read-only
  --ulimit nofile=1024:1024 --ulimit nproc=1024:1024
  -v "$work/spec/config:$CONFIG_MOUNT:ro")
for cap in "${caps[@]}"; do run+=(--cap-add "$cap"); done
[[ $HOST_PID == true ]] && run+=(--pid host)
# DirectoryOrCreate: a folder this machine lacks would be mounted empty, which reads as absent.
while read -r node_path container_path; do
  if [[ -d $node_path ]]; then run+=(-v "$node_path:$container_path:ro,rslave"); else echo "not on this machine: $node_path"; fi
done <"$work/spec/host-paths"
cleanup_pins() { :; }
if [[ -n $BPF_MOUNT ]]; then
  mkdir "$work/bpffs" && mount -t bpf bpf "$work/bpffs" ||
    { echo "FAIL: cannot mount a BPF filesystem for the chart's pins (mount -t bpf)" >&2; exit 1; }
  # The exporter's pins only: the kernel's own files there (maps.debug, progs.debug) cannot go.
  cleanup_pins() { rm -rf "$work/bpffs/netif_rx_exporter"; umount -l "$work/bpffs"; }
  run+=(-v "$work/bpffs:$BPF_MOUNT:$BPF_PROPAGATION")
fi
started=$(date +%s%N)
container=$("${podman[@]}" run "${run[@]}" "$IMAGE" "${args[@]}") || { echo "FAIL: podman run failed" >&2; exit 1; }
cleanup_container() { "${podman[@]}" rm -f -t 2 "$container" >/dev/null 2>&1; }
trap 'cleanup_container; cleanup_pins; cleanup' EXIT

# The startup probe first, as the kubelet does: every PERIOD s, TIMEOUT s each, FAILURE tries.
probe() { # probe PATH SCHEME TIMEOUT: one probe; success is 200-399
  local code
  code=$(curl -s -o /dev/null -m "$3" -w '%{http_code}' "$2://127.0.0.1:$PORT$1")
  [[ $code -ge 200 && $code -lt 400 ]]
}
while read -r name path scheme period timeout threshold delay; do
  sleep "$delay"
  ok=0
  for ((try = 1; try <= threshold; try++)); do
    if probe "$path" "$scheme" "$timeout"; then ok=1; break; fi
    sleep "$period"
  done
  expect "$name GET $path (period ${period}s, timeout ${timeout}s, threshold $threshold): succeeded on try $try" test "$ok" = 1
  [[ $name == startupProbe ]] && echo "started and ready in $((($(date +%s%N) - started) / 1000000)) ms"
done <"$work/spec/probes"

# The container's process: every capability dropped once attached.
pid=$("${podman[@]}" inspect --format '{{.State.Pid}}' "$container")
held=$(awk '/^Cap(Prm|Eff):/ { printf "%s ", $2 }' /proc/"$pid"/task/*/status | tr ' ' '\n' | sort -u | paste -sd' ')
expect "every thread of the exporter in the container holds no capability ($held)" test "$held" = 0000000000000000

# Veth traffic in a test namespace: 30 datagrams from CPU 0 to the host's end.
ns="imgtest$$"
# TEST-NET-2 (198.51.100.0/24), a /30 chosen by the pid.
base=$((($$ % 60) * 4))
host_ip="198.51.100.$((base + 1))"
peer_ip="198.51.100.$((base + 2))"
host="ih$$"
peer="ip$$"
ip netns add "$ns" && trap 'ip link del "$host" 2>/dev/null; ip netns del "$ns" 2>/dev/null; cleanup_container; cleanup_pins; cleanup' EXIT
ip link add "$host" type veth peer name "$peer" netns "$ns"
sysctl -qw "net.ipv6.conf.$host.disable_ipv6=1"
ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$peer.disable_ipv6=1"
ip addr add "$host_ip/30" dev "$host"
ip netns exec "$ns" ip addr add "$peer_ip/30" dev "$peer"
ip neigh replace "$peer_ip" lladdr "$(ip netns exec "$ns" cat /sys/class/net/$peer/address)" dev "$host" nud permanent
ip netns exec "$ns" ip neigh replace "$host_ip" lladdr "$(cat /sys/class/net/$host/address)" dev "$peer" nud permanent
ip link set "$host" up
ip netns exec "$ns" ip link set "$peer" up
sleep 1.5
# 30 UDP datagrams (bash's /dev/udp) to the discard port of the host's end, sent from CPU 0.
taskset -c 0 ip netns exec "$ns" bash -c "for _ in \$(seq 30); do echo x >/dev/udp/$host_ip/9; done"
sleep 1.5
curl -s -m 5 "http://127.0.0.1:$PORT/metrics" >"$work/metrics.txt"
# The chart's default keeps per-CPU series for the node's physical devices only: the veth is one
# series per family, without a cpu label.
packets() {
  awk -v d="device=\"$host\"" 'index($0, d) && /^netif_rx_packets_total\{/ { print $2 }' "$work/metrics.txt"
}
grep "^netif_rx_packets_total{.*device=\"$host\"" "$work/metrics.txt"
total=$(packets | head -n 1)
expect "30 datagrams sent: exactly 30 in the veth's one series (got ${total:-none})" test "${total:-0}" = 30
expect "the veth, not of the physical class, has one series and no cpu label" \
  test "$(packets | wc -l)-$(grep -c "^netif_rx_packets_total{cpu=.*device=\"$host\"" "$work/metrics.txt")" = 1-0
expect "the exporter's logfmt log" bash -c "'${podman[0]}' --runtime runc --cgroup-manager cgroupfs logs '$container' 2>&1 | grep -q 'msg=\"netif_rx_exporter is ready\"'"

# The pod restarted (a rollout): podman stop, 30 datagrams while no exporter runs, a new container.
if [[ -n $BPF_MOUNT ]]; then
  attached=$(awk '/^netif_rx_exporter_probe_attach_time_seconds / { print $2 }' "$work/metrics.txt")
  "${podman[@]}" stop -t 10 "$container" >/dev/null
  expect "podman stop left the pins (--bpf.pin-path alone) and the control map" \
    bash -c 'test -e "$1"/v*/link -a -e "$1"/control' _ "$work/bpffs/netif_rx_exporter"
  taskset -c 0 ip netns exec "$ns" bash -c "for _ in \$(seq 30); do echo x >/dev/udp/$host_ip/9; done"
  run[3]="netif-rx-test-$$-again"
  container=$("${podman[@]}" run "${run[@]}" "$IMAGE" "${args[@]}") || { echo "FAIL: podman run failed" >&2; exit 1; }
  for _ in $(seq 100); do probe /-/ready http 1 && break; sleep 0.2; done
  sleep 1.5
  curl -s -m 5 "http://127.0.0.1:$PORT/metrics" >"$work/metrics.txt"
  total=$(packets | head -n 1)
  again=$(awk '/^netif_rx_exporter_probe_attach_time_seconds / { print $2 }' "$work/metrics.txt")
  echo "after podman stop and a new container: $total packets, attach time $attached then $again"
  expect "the new container goes on: 60 packets (got ${total:-none})" test "${total:-0}" = 60
  expect "the probe's attach time stays (within 10 ms: boot time turned into wall time)" \
    awk -v a="${attached:-0}" -v b="${again:-1}" 'BEGIN { d = a - b; exit !(a > 0 && d < 0.01 && d > -0.01) }'
fi
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$IMAGE")
echo "image $IMAGE: $((size / 1024 / 1024)) MiB"
finish
