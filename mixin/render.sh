#!/usr/bin/env bash
# Renders the mixin into <root>/dashboards/*.json and <root>/rules/netif_rx_exporter.rules.yml.
#   mixin/render.sh <root> [<_config overrides as jsonnet, e.g. '{ clusterLabel: "region" }'>]
# `make mixin` runs it on the source tree with the default _config.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# >= 1 && $# <= 2)) || {
  echo "usage: render.sh <root> [<config jsonnet>]" >&2
  exit 2
}
root=$1
config=${2:-'{}'}
command -v jsonnet >/dev/null || {
  echo "render.sh: 'jsonnet' is not installed (Debian package: jsonnet)" >&2
  exit 1
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jsonnet -J "$here" -S -m "$out" --tla-code "config=$config" "$here/render.jsonnet" >/dev/null
mkdir -p "$root/dashboards" "$root/rules"
cp "$out"/*.json "$root/dashboards/"
cp "$out"/netif_rx_exporter.rules.yml "$root/rules/"
