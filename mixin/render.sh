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

command -v python3 >/dev/null || {
  echo "render.sh: 'python3' is not installed (Debian package: python3)" >&2
  exit 1
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
jsonnet -J "$here" --tla-code "config=$config" "$here/render.jsonnet" >"$out/rendered.json"
mkdir -p "$root/dashboards" "$root/rules"
# Each dashboard as JSON with two spaces of indentation, the rules file as rendered; each ends
# with a newline.
python3 - "$out/rendered.json" "$root" <<'PY'
import json
import sys

rendered_path, root = sys.argv[1], sys.argv[2]
with open(rendered_path, encoding="utf-8") as rendered_file:
    rendered = json.load(rendered_file)
for name, dashboard in rendered["dashboards"].items():
    with open(f"{root}/dashboards/{name}", "w", encoding="utf-8") as out:
        out.write(json.dumps(dashboard, indent=2, ensure_ascii=False) + "\n")
with open(f"{root}/rules/netif_rx_exporter.rules.yml", "w", encoding="utf-8") as out:
    out.write(rendered["rules"] + "\n")
PY
