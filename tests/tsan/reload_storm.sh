#!/usr/bin/env bash
# A reload storm under ThreadSanitizer: 100 SIGHUPs, one every ~50 ms, each
# after the configuration, the web configuration (headers, users) and the
# server certificate and key were replaced by rename (namespaces: all, so the
# namespace attribution's thread runs too); meanwhile 4 loops scrape
# /metrics over TLS with basic auth, and veth pairs (host end here, peer in a
# namespace made for the test) are created and deleted. Passes with zero
# ThreadSanitizer reports, the exporter alive throughout and exiting 0 on
# SIGTERM. Prints the figures.
# Usage: reload_storm.sh <netif_rx_exporter built with -fsanitize=thread> <source dir>
binary=$(realpath "$1")
source_dir=$2
source "$source_dir/tests/lib/checks.sh"
require_tools curl openssl htpasswd ip python3
require_root

short=$(($$ % 100000))
ns="nrxts$short"
churn_cleanup() {
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^nrxts${short}h"); do
    ip link del "$link" 2>/dev/null
  done
  ip netns del "$ns" 2>/dev/null
  cleanup
}
trap churn_cleanup EXIT
cd "$work" || exit 1

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -keyout ca.key -out ca.crt -subj /CN=storm-ca 2>/dev/null || { echo "FAIL: openssl" >&2; exit 1; }
for name in a b; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$name.key" \
    -out "$name.csr" -subj "/CN=storm-$name" 2>/dev/null &&
    openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
      -out "$name.crt" -extfile <(echo 'subjectAltName=IP:127.0.0.1') 2>/dev/null ||
    { echo "FAIL: openssl could not make the certificates" >&2; exit 1; }
done
hash=$(htpasswd -nbBC 4 prom secret | cut -d: -f2)
other=$(htpasswd -nbBC 4 other secret | cut -d: -f2)

write_files() { # write_files a|b: every file the exporter reads, replaced by rename
  local v=$1
  cp "$v.crt" server.crt.new && cp "$v.key" server.key.new
  mv server.key.new server.key && mv server.crt.new server.crt
  {
    printf 'tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n'
    printf 'basic_auth_users:\n  prom: %s\n' "$hash"
    if [[ $v == b ]]; then printf '  other: %s\n' "$other"; fi
    printf 'http_server_config:\n  headers:\n    X-Frame-Options: deny\n'
    if [[ $v == b ]]; then printf '    X-Content-Type-Options: nosniff\n'; fi
  } >web.yml.new
  mv web.yml.new web.yml
  if [[ $v == a ]]; then
    printf 'poll_interval: 200ms\nper_cpu: true\nnamespaces: all\n' >config.yml.new
  else
    printf 'poll_interval: 300ms\nper_cpu: false\nstale_after: 1m\nnamespaces: all\n' >config.yml.new
  fi
  mv config.yml.new config.yml
}
write_files a

port=$(free_port)
export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 log_path=$work/tsan-report"
start_seconds=$SECONDS
start_exporter run.log --config.file="$work/config.yml" --web.config.file="$work/web.yml" \
  --web.listen-address="127.0.0.1:$port" --log.level=warn
url="https://127.0.0.1:$port"
curl_args=(-s --cacert ca.crt -u prom:secret --max-time 20)
if ! wait_http "$url/-/ready" 200 "${curl_args[@]}"; then
  # Slow under ThreadSanitizer: give it longer than wait_http's 10 s.
  sleep 20
  wait_http "$url/-/ready" 200 "${curl_args[@]}" ||
    { echo "FAIL: the exporter did not answer; its log:" >&2; cat run.log >&2; exit 1; }
fi

scrape_loop() { # scrape_loop N: until the stop file appears (at most 3 min)
  local end=$((SECONDS + 180))
  while [[ ! -e stop && $SECONDS -lt $end ]]; do
    curl "${curl_args[@]}" -o /dev/null -w '%{http_code}\n' "$url/metrics" >>"scrapes$1.log"
  done
}
churn_loop() { # veth pairs in and out, at most 4 alive, until the stop file
  ip netns add "$ns" 2>>churn.err || return 1
  local i=0 end=$((SECONDS + 180))
  while [[ ! -e stop && $SECONDS -lt $end && $i -lt 2000 ]]; do
    ip link add "nrxts${short}h$i" type veth peer name "nrxts${short}p$i" netns "$ns" 2>>churn.err &&
      ip link set "nrxts${short}h$i" up 2>>churn.err && echo "$i" >>churn.log
    [[ $i -ge 4 ]] && ip link del "nrxts${short}h$((i - 4))" 2>/dev/null
    i=$((i + 1))
    sleep 0.05
  done
}
for n in 1 2 3 4; do
  scrape_loop "$n" &
  pids+=($!)
done
churn_loop &
pids+=($!)

hups=0
for round in $(seq 100); do
  if ((round % 2)); then write_files b; else write_files a; fi
  kill -HUP "$pid" 2>/dev/null && hups=$((hups + 1))
  sleep 0.05
done
sleep 1
alive_after_storm=$(kill -0 "$pid" 2>/dev/null && echo yes || echo no)
# The last SIGHUP's reload may still be queued behind earlier ones on a
# loaded machine: the exporter has 10 s to answer 200 again.
code_after=000
settle_end=$((SECONDS + 10))
while ((SECONDS < settle_end)); do
  code_after=$(curl "${curl_args[@]}" --max-time 5 -o /dev/null -w '%{http_code}' "$url/metrics")
  [[ $code_after == 200 ]] && break
  sleep 0.5
done
touch stop
for p in "${pids[@]:1}"; do wait "$p" 2>/dev/null; done
stop_exporter
status=$?
elapsed=$((SECONDS - start_seconds))

reports=$(cat tsan-report.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer')
scrapes=$(cat scrapes*.log 2>/dev/null | wc -l)
codes=$(cat scrapes*.log 2>/dev/null | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}')
pairs=$(wc -l <churn.log 2>/dev/null || echo 0)
printf 'storm: %d SIGHUPs with file replacements every ~50 ms, %d scrapes (%s), %d veth pairs created, %d s; ThreadSanitizer reports: %d\n' \
  "$hups" "$scrapes" "$codes" "$pairs" "$elapsed" "$reports"

expect "100 SIGHUPs delivered" test "$hups" -eq 100
expect "the exporter survived the storm" test "$alive_after_storm" = yes
if [[ $alive_after_storm != yes || $status -ne 0 || $code_after != 200 ]]; then
  echo "the exporter's log (last 60 lines):" >&2
  tail -60 run.log >&2
fi
expect "a scrape within 10 s after the storm answers 200 (last: $code_after)" test "$code_after" = 200
for n in 1 2 3 4; do
  expect "scrape loop $n scraped" test -s "scrapes$n.log"
done
expect "veth pairs were churned ($pairs)" test "$pairs" -ge 10
if [[ $pairs -lt 10 && -s churn.err ]]; then
  echo "the churn's errors (first 5):" >&2
  head -5 churn.err >&2
fi
expect "exit 0 on SIGTERM (got $status)" test "$status" -eq 0
if [[ $reports -ne 0 ]]; then
  fail "ThreadSanitizer reported $reports data races or other errors:"
  cat tsan-report.* | head -150 >&2
else
  pass "zero ThreadSanitizer reports"
fi
finish
