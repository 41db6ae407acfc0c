#!/usr/bin/env bash
# Prints the path of the package that scripts/build-deb.sh left in OUT_DIR for this version and
# architecture; exit status 1, with a one-line reason, when there is none.
#   built-deb.sh OUT_DIR [ARCH]
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
out_dir=${1:?usage: built-deb.sh OUT_DIR [ARCH]}
version=$(dpkg-parsechangelog -l "$source_dir/debian/changelog" -S Version)
package=$(dpkg-parsechangelog -l "$source_dir/debian/changelog" -S Source)
arch=${2:-$(dpkg --print-architecture)}
deb="$out_dir/${package}_${version}_${arch}.deb"
[[ -f "$deb" ]] || { echo "built-deb: no $deb (make deb, or the ctest package_deb, builds it)" >&2; exit 1; }
echo "$deb"
