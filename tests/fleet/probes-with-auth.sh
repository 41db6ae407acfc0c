#!/usr/bin/env bash
# The chart's probes against an exporter with TLS, a required client certificate and basic auth.
# Renders ci/tls-values.yaml, takes the DaemonSet's liveness, readiness and startup probes and its
# arguments, starts the exporter with a web configuration of the kind that values file expects in
# its Secret, and performs each probe as kubelet does: httpGet with the rendered scheme, path and
# port, no certificate verification, no client certificate, no credentials, kubelet's headers;
# success is a status from 200 to 399. Then checks that everything else stays protected.
#
#   probes-with-auth.sh TOOLS_DIR EXPORTER_BINARY      (as root: the exporter loads its probe)
binary=$2
source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$source_dir/tests/lib/checks.sh"
tools=$(cd "${1:?usage: probes-with-auth.sh TOOLS_DIR EXPORTER_BINARY}" && pwd)
require_tools node curl openssl htpasswd
require_root
helm="$tools/helm/helm"
[[ -x "$helm" ]] || { echo "FAIL: $helm is missing: run setup-tools.sh $tools first" >&2; exit 1; }
export HELM_CACHE_HOME="$tools/helm-home/cache" HELM_CONFIG_HOME="$tools/helm-home/config" \
  HELM_DATA_HOME="$tools/helm-home/data"
chart="$source_dir/deploy/helm/netif-rx-exporter"
cd "$work" || exit 1

"$helm" template probes "$chart" -f "$chart/ci/tls-values.yaml" >rendered.yaml 2>helm.log ||
  { echo "FAIL: helm template of ci/tls-values.yaml" >&2; exit 1; }
# One line per probe: KIND PATH PORT SCHEME; then "args" lines.
NODE_PATH="$tools/node_modules" node -e '
const yaml = require("yaml");
const docs = yaml.parseAllDocuments(require("fs").readFileSync(process.argv[1], "utf8"));
const ds = docs.map((d) => d.toJS()).find((o) => o && o.kind === "DaemonSet");
const c = ds.spec.template.spec.containers[0];
const ports = Object.fromEntries(c.ports.map((p) => [p.name, p.containerPort]));
for (const kind of ["livenessProbe", "readinessProbe", "startupProbe"]) {
  const g = c[kind].httpGet;
  const port = typeof g.port === "number" ? g.port : ports[g.port];
  console.log(["probe", kind, g.path, port, g.scheme || "HTTP"].join(" "));
}
for (const a of c.args) console.log("arg " + a);
' rendered.yaml >probes.txt || { echo "FAIL: could not read the rendered DaemonSet" >&2; exit 1; }
expect "the chart renders three httpGet probes" test "$(grep -c '^probe ' probes.txt)" = 3
expect "the chart passes --web.config.file" grep -q '^arg --web.config.file=' probes.txt
expect "every probe uses HTTPS with TLS on" \
  bash -c "! grep '^probe ' probes.txt | grep -qv ' HTTPS$'"
chart_port=$(awk '/^probe /{print $4; exit}' probes.txt)

# The Secret's web-config.yml: TLS, client certificates required and verified, basic auth.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -keyout ca.key -out ca.crt -subj /CN=netif-rx-exporter-ca 2>/dev/null
for name in server client; do
  if [[ $name == server ]]; then ext='subjectAltName=IP:127.0.0.1,DNS:netif-rx-exporter'
  else ext='extendedKeyUsage=clientAuth'; fi
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $name.key \
    -out $name.csr -subj "/CN=$name" 2>/dev/null &&
    openssl x509 -req -in $name.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
      -out $name.crt -extfile <(echo "$ext") 2>/dev/null ||
    { echo "FAIL: openssl could not make the test certificates" >&2; exit 1; }
done
cat >web-config.yml <<YAML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca.crt
  client_auth_type: RequireAndVerifyClientCert
basic_auth_users:
  prometheus: '$(htpasswd -nbBC 5 prometheus scrape-secret | cut -d: -f2)'
YAML
# The chart's port may be taken on this machine: the same probes on a free loopback port.
port=$(free_port)
start_exporter run.log --web.config.file=web-config.yml --web.listen-address="127.0.0.1:$port"
scrape=(--cacert ca.crt --cert client.crt --key client.key -u prometheus:scrape-secret)
if ! wait_http "https://127.0.0.1:$port/-/ready" 200 "${scrape[@]}"; then
  echo "FAIL: the exporter did not become ready; its log:" >&2
  cat run.log >&2
  exit 1
fi

# kubelet: no verification, no client certificate, no credentials, its own headers.
kubelet_probe() { # SCHEME PATH -> status code
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 -k -H 'User-Agent: kube-probe/1.33' \
    -H 'Accept: */*' "${1,,}://127.0.0.1:$port$2"
}
while read -r _ kind path probe_port scheme; do
  [[ $probe_port == "$chart_port" ]] || fail "$kind: port $probe_port is not the metrics port"
  status=$(kubelet_probe "$scheme" "$path")
  expect "$kind ($scheme $path, as kubelet: no certificate, no credentials) succeeds: $status" \
    test "$status" -ge 200 -a "$status" -lt 400
done < <(grep '^probe ' probes.txt)

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
url="https://127.0.0.1:$port"
expect "metrics without a client certificate: 403" test "$(code -k "$url/metrics")" = 403
expect "metrics without a client certificate, with credentials: 403" \
  test "$(code -k -u prometheus:scrape-secret "$url/metrics")" = 403
expect "landing page without a client certificate: 403" test "$(code -k "$url/")" = 403
expect "metrics with a client certificate, no credentials: 401" \
  test "$(code --cacert ca.crt --cert client.crt --key client.key "$url/metrics")" = 401
expect "metrics with a client certificate and credentials (the ServiceMonitor): 200" \
  test "$(code "${scrape[@]}" "$url/metrics")" = 200
expect "a probe path does not leak metrics" \
  bash -c "! curl -sk '$url/-/healthy' | grep -q '^netif_rx_'"
stop_exporter >/dev/null
finish
