#!/usr/bin/env bash
# --web.config.file: TLS (handshake, wrong CA, client certificates, rotation
# without restart), basic auth with a bcrypt hash, response headers, 500
# while the file is broken, and a bad file at startup. Certificates and the
# hash are made here, at test time.
# Usage: web_test.sh <netif_rx_exporter binary> <source dir>
binary=$1
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools curl openssl htpasswd python3
require_root

cd "$work" || exit 1
# make_ca NAME; make_cert NAME CA [server|client]
make_ca() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -keyout "$1.key" -out "$1.crt" -subj "/CN=$1" 2>/dev/null
}
make_cert() {
  local ext
  if [[ $3 == server ]]; then ext='subjectAltName=IP:127.0.0.1'; else ext='extendedKeyUsage=clientAuth'; fi
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" \
    -out "$1.csr" -subj "/CN=$1" 2>/dev/null &&
    openssl x509 -req -in "$1.csr" -CA "$2.crt" -CAkey "$2.key" -CAcreateserial -days 1 \
      -out "$1.crt" -extfile <(echo "$ext") 2>/dev/null
}
make_ca ca1 && make_ca ca2 && make_cert server1 ca1 server && make_cert server2 ca2 server &&
  make_cert client1 ca1 client && make_cert client2 ca2 client ||
  { echo "FAIL: openssl could not make the test certificates" >&2; exit 1; }
cp server1.crt server.crt && cp server1.key server.key
hash=$(htpasswd -nbBC 5 admin secret | cut -d: -f2)

code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# --- TLS, basic auth, headers. ---
cat >web.yml <<YAML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
basic_auth_users:
  admin: '$hash'
http_server_config:
  headers:
    X-Frame-Options: deny
    Content-Security-Policy: "default-src 'none'"
YAML
port=$(free_port)
url="https://127.0.0.1:$port"
start_exporter run.log --web.config.file=web.yml --web.listen-address="127.0.0.1:$port"
if ! wait_http "$url/-/ready" 200 --cacert ca1.crt -u admin:secret; then
  echo "FAIL: the exporter did not become ready over TLS; its log:" >&2
  cat run.log >&2
  exit 1
fi
pass "TLS handshake with the right CA, ready"
curl -s -o /dev/null --cacert ca2.crt -u admin:secret "$url/metrics"
rc=$?
expect "a client trusting another CA refuses the server (curl exit $rc)" test "$rc" = 60
expect "plain HTTP on the TLS port gets no answer" test "$(code "http://127.0.0.1:$port/metrics")" = 000
expect "basic auth: 401 without credentials" test "$(code --cacert ca1.crt "$url/metrics")" = 401
expect "basic auth: WWW-Authenticate on 401" \
  bash -c "curl -s -D - -o /dev/null --cacert ca1.crt '$url/metrics' | grep -qi '^WWW-Authenticate: Basic'"
expect "basic auth: 200 with the right password" test "$(code --cacert ca1.crt -u admin:secret "$url/metrics")" = 200
expect "basic auth: 401 with a wrong password" test "$(code --cacert ca1.crt -u admin:wrong "$url/metrics")" = 401
expect "basic auth: 401 for an unknown user" test "$(code --cacert ca1.crt -u nobody:secret "$url/metrics")" = 401
curl -s -D headers.txt -o metrics.txt --cacert ca1.crt -u admin:secret "$url/metrics"
expect "headers: X-Frame-Options on every answer" grep -qi '^X-Frame-Options: deny' headers.txt
expect "headers: Content-Security-Policy" grep -qi "^Content-Security-Policy: default-src 'none'" headers.txt
expect "headers: also on a 401" \
  bash -c "curl -s -D - -o /dev/null --cacert ca1.crt '$url/' | grep -qi '^X-Frame-Options: deny'"
for family in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes process_virtual_memory_max_bytes \
              process_start_time_seconds process_open_fds process_max_fds netif_rx_packets_total; do
  expect "metrics over TLS: $family" grep -q "^# TYPE $family " metrics.txt
done
expect "landing page over TLS links the metrics" \
  bash -c "curl -s --cacert ca1.crt -u admin:secret '$url/' | grep -q 'href=\"/metrics\"'"

# Rotation: new certificate and key, no restart.
cp server2.key server.key.new && cp server2.crt server.crt.new && mv server.key.new server.key &&
  mv server.crt.new server.crt
sleep 0.1
expect "rotation: the new certificate is served (trusting its CA)" \
  test "$(code --cacert ca2.crt -u admin:secret "$url/metrics")" = 200
expect "rotation: the old one is gone" test "$(code --cacert ca1.crt -u admin:secret "$url/metrics")" = 000

# A broken file: 500, never served without auth; fixed: back.
cp web.yml web.yml.good
echo "basic_auth_users: [" >>web.yml
expect "broken web config: 500 with valid credentials" \
  test "$(code --cacert ca2.crt -u admin:secret "$url/metrics")" = 500
expect "broken web config: 500 without credentials (not served without auth)" \
  test "$(code --cacert ca2.crt "$url/metrics")" = 500
expect "broken web config: logged with file:line" grep -q 'msg="web configuration reload failed, refusing requests with 500" err="web.yml:[0-9]*:[0-9]*: ' run.log
cp web.yml.good web.yml
expect "fixed web config: 200 again" test "$(code --cacert ca2.crt -u admin:secret "$url/metrics")" = 200
stop_exporter >/dev/null

# --- Client certificates required and verified. ---
cp server1.crt server.crt && cp server1.key server.key
cat >mtls.yml <<YAML
tls_server_config:
  cert_file: server.crt
  key_file: server.key
  client_ca_file: ca1.crt
  client_auth_type: RequireAndVerifyClientCert
  min_version: TLS12
YAML
port=$(free_port)
url="https://127.0.0.1:$port"
start_exporter mtls.log --web.config.file=mtls.yml --web.listen-address="127.0.0.1:$port"
if wait_http "$url/metrics" 200 --cacert ca1.crt --cert client1.crt --key client1.key; then
  pass "client certificate signed by the client CA: 200"
  expect "no client certificate: metrics refused with 403" \
    test "$(code --cacert ca1.crt "$url/metrics")" = 403
  # /metrics answers before READY (the privilege check follows the listeners):
  # wait for /-/ready rather than ask once.
  expect "no client certificate: the probe paths answer (kubelet presents none)" \
    test "$(code -k "$url/-/healthy")-$(wait_http "$url/-/ready" 200 -k && echo ready)" = 200-ready
  expect "client certificate of another CA: refused" \
    test "$(code --cacert ca1.crt --cert client2.crt --key client2.key "$url/-/healthy")" = 000
else
  fail "mutual TLS: no answer with a valid client certificate; log: $(cat mtls.log)"
fi
stop_exporter >/dev/null

# --- No TLS session resumes across a change of the web configuration. ---
# session VERSION OUT|IN FILE [openssl args]: one request; prints New or Reused.
session() {
  local version=$1 mode=$2 file=$3
  shift 3
  printf 'GET /-/healthy HTTP/1.0\r\n\r\n' |
    timeout 5 openssl s_client -connect "127.0.0.1:$port" "-$version" -CAfile ca1.crt \
      -CAfile ca2.crt -ign_eof "-sess_$mode" "$file" "$@" 2>/dev/null |
    awk '/^(New|Reused),/ { sub(",", "", $1); print $1; exit }'
}
cat ca1.crt ca2.crt >cas.crt
cp server1.crt server.crt && cp server1.key server.key
write_tls_config() { # CLIENT_AUTH [CLIENT_CA]
  { printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n'
    [[ -n ${2:-} ]] && printf '  client_ca_file: %s\n' "$2"
    printf '  client_auth_type: %s\n' "$1"; } >sessions.yml.new && mv sessions.yml.new sessions.yml
}
write_tls_config NoClientCert
port=$(free_port)
url="https://127.0.0.1:$port"
start_exporter sessions.log --web.config.file=sessions.yml --web.listen-address="127.0.0.1:$port"
if wait_http "$url/-/healthy" 200 -k; then
  for version in tls1_2 tls1_3; do
    session $version out "open.$version" >/dev/null
    expect "$version: a session resumes while the configuration stays" \
      test "$(session $version in "open.$version")" = Reused
    # Tightened to client certificates required: the open session must not come back.
    write_tls_config RequireAndVerifyClientCert ca1.crt
    expect "$version: client_auth_type changed: the earlier session is not resumed" \
      test "$(session $version in "open.$version")" = New
    status=$(printf 'GET /metrics HTTP/1.0\r\n\r\n' | timeout 5 openssl s_client -quiet \
      -connect "127.0.0.1:$port" "-$version" -sess_in "open.$version" 2>/dev/null | head -1)
    expect "$version: ... and metrics over it need a certificate ($status)" \
      grep -q ' 403 ' <<<"$status"
    session $version out "mtls.$version" -cert client1.crt -key client1.key >/dev/null
    expect "$version: a client-certificate session resumes while the configuration stays" \
      test "$(session $version in "mtls.$version" -cert client1.crt -key client1.key)" = Reused
    write_tls_config RequireAndVerifyClientCert cas.crt
    expect "$version: client CA changed: the earlier session is not resumed" \
      test "$(session $version in "mtls.$version" -cert client1.crt -key client1.key)" = New
    session $version out "ca.$version" -cert client1.crt -key client1.key >/dev/null
    cp server2.crt server.crt.new && cp server2.key server.key.new && mv server.key.new server.key &&
      mv server.crt.new server.crt
    expect "$version: certificate and key changed: the earlier session is not resumed" \
      test "$(session $version in "ca.$version" -cert client1.crt -key client1.key)" = New
    cp server1.crt server.crt && cp server1.key server.key
    write_tls_config NoClientCert
    sleep 0.05
  done
else
  fail "TLS sessions: the exporter did not start; log: $(cat sessions.log)"
fi
stop_exporter >/dev/null

# --- IPv6 and dual-stack listen addresses (Debian's civetweb has no IPv6 of its own). ---
port6=$(free_port)
port_dual=$(free_port)
start_exporter ipv6.log --web.listen-address="[::1]:$port6" --web.listen-address="[::]:$port_dual"
if wait_http "http://[::1]:$port6/-/ready" 200 -g; then
  pass "[::1]:PORT: an IPv6 client gets an answer"
  expect "[::1]:PORT: metrics over IPv6" \
    bash -c "curl -sg 'http://[::1]:$port6/metrics' | grep -q '^# TYPE netif_rx_packets_total '"
  expect "[::1]:PORT: not on IPv4" test "$(code "http://127.0.0.1:$port6/-/healthy")" = 000
  expect "[::]:PORT: IPv6 clients" test "$(code -g "http://[::1]:$port_dual/-/healthy")" = 200
  expect "[::]:PORT: IPv4 clients too (dual-stack)" \
    test "$(code "http://127.0.0.1:$port_dual/-/healthy")" = 200
  expect "IPv6: the log names the addresses" grep -qF "msg=\"listening\" address=[::1]:$port6 " ipv6.log
else
  fail "IPv6: no answer on [::1]:$port6; log: $(cat ipv6.log)"
fi
stop_exporter >/dev/null
port6=$(free_port)
start_exporter ipv6tls.log --web.config.file=mtls.yml --web.listen-address="[::1]:$port6"
expect "[::1]:PORT with TLS and client certificates" \
  wait_http "https://[::1]:$port6/metrics" 200 -g -k --cert client1.crt --key client1.key
stop_exporter >/dev/null

# --- A bad web configuration at startup is fatal, in one line. ---
printf 'basic_auth_users:\n  bob: plaintext\n' >bad.yml
out=$(timeout 10 "$binary" --web.config.file=bad.yml --web.listen-address="127.0.0.1:$(free_port)" 2>&1)
rc=$?
expect "bad web config at startup: exit 1 (got $rc)" test "$rc" = 1
expect "bad web config at startup: one line with file:line:column" \
  grep -q "msg=\"invalid web configuration\" err=\"bad.yml:2:8: key 'basic_auth_users.bob': not a bcrypt hash" <<<"$out"
printf 'tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n' >nocert.yml
out=$(timeout 10 "$binary" --web.config.file=nocert.yml --web.listen-address="127.0.0.1:$(free_port)" 2>&1)
rc=$?
expect "missing certificate at startup: exit 1 naming the file (got $rc)" \
  bash -c "[[ $rc == 1 ]] && grep -q 'cannot load the TLS certificate .*missing.crt' <<<'$out'"

finish
