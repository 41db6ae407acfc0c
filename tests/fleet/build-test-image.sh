#!/usr/bin/env bash
# make image for the image test (run-image.sh): the exporter and its libraries from the Debian
# package that the ctest package_deb left in DEB_DIR, in the build stage's place.
#   build-test-image.sh DEB_DIR
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
deb=$(bash "$source_dir/scripts/built-deb.sh" "${1:?usage: build-test-image.sh DEB_DIR}")
exec bash "$source_dir/scripts/build-image.sh" --from-deb "$deb"
