#!/usr/bin/env bash
# Checks the container image recipe without a container engine:
#   - the Containerfile builds with the project's dependency script, installs exactly
#     packaging/container/runtime-packages.txt in a bookworm-slim stage, and has an exec-form
#     (non-shell) entrypoint;
#   - every runtime package resolves in Debian's archive (apt-cache);
#   - every shared library of the built binary (ldd) belongs to a runtime package or to one of
#     their dependencies;
#   - the binary runs (--version, --help) in a chroot that holds nothing but the files of those
#     packages.
#
#   check-container.sh EXPORTER_BINARY [--allow-sanitizer-runtime]
#
# --allow-sanitizer-runtime accepts (and copies into the chroot) the ASan/UBSan runtime of a
# sanitizer build, which a release image never contains. Needs root for the chroot.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
binary=${1:?usage: check-container.sh EXPORTER_BINARY [--allow-sanitizer-runtime]}
allow_sanitizer=0
[[ "${2:-}" == "--allow-sanitizer-runtime" ]] && allow_sanitizer=1
containerfile="$root/packaging/container/Containerfile"
list="$root/packaging/container/runtime-packages.txt"

die() {
  echo "check-container: FAIL: $*" >&2
  exit 1
}
for tool in apt-cache dpkg-query ldd chroot unshare tar; do
  command -v "$tool" >/dev/null || die "'$tool' is not installed (Debian packages: apt dpkg libc-bin coreutils util-linux tar)"
done
[[ $(id -u) -eq 0 ]] || die "must run as root (chroot)"
[[ -x "$binary" ]] || die "exporter binary '$binary' does not exist or is not executable"
[[ -f "$containerfile" && -f "$list" ]] || die "$containerfile or $list is missing"

passed=0
failed=0
pass() {
  passed=$((passed + 1))
  echo "check-container: ok: $*"
}
fail() {
  failed=$((failed + 1))
  echo "check-container: FAIL: $*" >&2
}

# ---- the recipe -------------------------------------------------------------------------------
# expect DESCRIPTION FAILURE COMMAND...: pass or fail on the command's status.
expect() {
  local ok=$1 ko=$2
  shift 2
  if "$@"; then pass "$ok"; else fail "$ko"; fi
}
has() { grep -Eq -- "$1" "$containerfile"; }
count() { grep -Ec -- "$1" "$containerfile" || true; }
build_stage_is_bookworm() {
  has '^FROM [^ ]*debian:\$\{DEBIAN_RELEASE\} AS build$' && has '^ARG DEBIAN_RELEASE=bookworm$'
}
installs_runtime_list() { has 'runtime-packages\.txt' && has '--no-install-recommends'; }
exec_form_entrypoint() { [[ "$entrypoint" =~ ^ENTRYPOINT\ \[\"/usr/bin/netif_rx_exporter\" ]]; }
two_stages_no_shell_form() { [[ $(count '^FROM ') -eq 2 && $(count '^(CMD|ENTRYPOINT) [^[]') -eq 0 ]]; }
entrypoint=$(grep -E '^ENTRYPOINT' "$containerfile" | tail -n 1 || true)

expect "the build stage is Debian bookworm" \
  "the build stage is not FROM debian:\${DEBIAN_RELEASE} with DEBIAN_RELEASE=bookworm" build_stage_is_bookworm
expect "the build stage installs with scripts/install-deps.sh" \
  "the build stage does not use scripts/install-deps.sh" has 'scripts/install-deps\.sh'
expect "the runtime stage is bookworm-slim" \
  "the runtime stage is not debian:\${DEBIAN_RELEASE}-slim" has '^FROM [^ ]*debian:\$\{DEBIAN_RELEASE\}-slim AS runtime$'
expect "the runtime stage installs runtime-packages.txt without recommends" \
  "the runtime stage does not install runtime-packages.txt with --no-install-recommends" installs_runtime_list
expect "exec-form entrypoint: $entrypoint" \
  "the entrypoint is not exec form [\"/usr/bin/netif_rx_exporter\", ...]: $entrypoint" exec_form_entrypoint
expect "two stages, no shell-form CMD or ENTRYPOINT" \
  "expected two stages and no shell-form CMD/ENTRYPOINT" two_stages_no_shell_form

# ---- the runtime packages resolve -------------------------------------------------------------
mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$list")
((${#packages[@]} > 0)) || die "$list lists no package"
libc_policy=$(apt-cache policy libc6 2>/dev/null || true)
if ! grep -q 'Candidate: [^(]' <<<"$libc_policy"; then
  die "apt has no package lists: run 'apt-get update' first"
fi
for p in "${packages[@]}"; do
  candidate=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
  if [[ -n "$candidate" && "$candidate" != "(none)" ]]; then pass "$p resolves ($candidate)"; else fail "$p does not resolve in the configured Debian archive"; fi
done

# Everything an install of those packages brings: the packages and their dependencies, through
# virtual packages and alternatives.
mapfile -t closure < <(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances "${packages[@]}" 2>/dev/null | grep -v '^ ' | sed 's/^<\(.*\)>$/\1/' | sort -u)
declare -A in_closure=()
for p in "${closure[@]}"; do in_closure[$p]=1; done
sanitizer_packages=()

# ---- the binary's libraries are covered ------------------------------------------------------
owner() { # the package that ships a library, whatever /usr-merge spelling dpkg recorded
  local lib=$1 real candidates=() c
  real=$(readlink -f "$lib")
  for c in "$lib" "$real"; do
    candidates+=("$c")
    if [[ "$c" == /usr/* ]]; then candidates+=("${c#/usr}"); else candidates+=("/usr$c"); fi
  done
  for c in "${candidates[@]}"; do
    if out=$(dpkg-query -S "$c" 2>/dev/null); then
      echo "${out%%:*}"
      return 0
    fi
  done
  return 1
}
ldd_out=$(ldd "$binary") || die "ldd $binary failed: is it a dynamic executable for this machine?"
if grep -q 'not found' <<<"$ldd_out"; then fail "libraries not found on this machine: $(grep 'not found' <<<"$ldd_out" | tr -s ' \t' ' ')"; fi
mapfile -t libs < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$ldd_out" | sort -u)
((${#libs[@]} > 0)) || die "ldd found no shared library in $binary"
for lib in "${libs[@]}"; do
  if ! pkg=$(owner "$lib"); then
    fail "$lib (needed by the binary) belongs to no Debian package"
    continue
  fi
  pkg=${pkg%%,*}
  if [[ -n "${in_closure[$pkg]:-}" ]]; then
    pass "$(basename "$lib") is in $pkg"
  elif ((allow_sanitizer)) && [[ "$(basename "$lib")" =~ ^lib(asan|ubsan|lsan|tsan)\.so ]]; then
    sanitizer_packages+=("$pkg")
    pass "$(basename "$lib") is in $pkg (sanitizer runtime of this test build; never in the image)"
  else
    fail "$(basename "$lib") is in $pkg, which runtime-packages.txt does not bring: add $pkg to $list"
  fi
done

# ---- the binary runs with only those packages' files -------------------------------------------
rootfs=$(mktemp -d /tmp/netif-rx-rootfs.XXXXXX)
trap 'rm -rf --one-file-system "$rootfs"' EXIT
# The /usr-merged layout of bookworm images.
mkdir -p "$rootfs"/usr/{bin,sbin,lib,lib64} "$rootfs"/{proc,tmp,etc}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$rootfs/$d"; done
installed=()
for p in "${closure[@]}" "${sanitizer_packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == installed ]] && installed+=("$p")
done
for p in "${packages[@]}"; do
  [[ " ${installed[*]} " == *" $p "* ]] || fail "$p is not installed on this machine, so the chroot cannot hold it (apt-get install $p)"
done
dpkg-query -L "${installed[@]}" 2>/dev/null |
  grep -Ev '^/(usr/share/(doc|man|info|locale|lintian)|\.)(/|$)' |
  while read -r f; do [[ -e "$f" && (! -d "$f" || -L "$f") ]] && printf '%s\n' "${f#/}"; done |
  sort -u >"$rootfs/.files"
tar -C / --no-recursion -cf - -T "$rootfs/.files" | tar -C "$rootfs" --keep-directory-symlink -xf -
rm -f "$rootfs/.files"
install -m 0755 "$binary" "$rootfs/usr/bin/netif_rx_exporter"
echo "check-container: chroot of ${#installed[@]} packages ($(du -sh "$rootfs" | cut -f1)): ${installed[*]}"
for args in --version --help; do
  # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
  if out=$(unshare --mount --fork sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" /usr/bin/netif_rx_exporter "$2"' sh "$rootfs" "$args" 2>&1); then
    pass "netif_rx_exporter $args runs with only the runtime packages: $(head -n 1 <<<"$out")"
  else
    fail "netif_rx_exporter $args fails with only the runtime packages: $out"
  fi
done

echo "check-container: $passed passed, $failed failed"
((failed == 0))
