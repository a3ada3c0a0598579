#!/usr/bin/env bash
# ./build.sh update-check [IMAGE.img|IMAGE.img.xz] — proves A/B updates, rollback, power cuts and a backup
# restored onto a fresh card on the emulated board (docs/image.md "update-check"). Default image: the
# newest build/vigil-*-arm64.img(.xz). The test bundles it installs (through the API) are built first when
# missing or older than the image, from the same tree and cached stages:
#   B: version +1 patch, --test-migration;  C: version +2 patch, --test-unhealthy;
#   D: version +3 patch, --test-unconfirmed;   the image's own version (./build.sh bundle), older than B.
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"
OUT=${VIGIL_IMAGE_OUT:-$REPO/build}

USAGE="./build.sh update-check [IMAGE.img.xz|IMAGE.img]"
parse_image_args "$USAGE" "$@"

require_root update-check
pick_image "$IMAGE_ARG" "$OUT"
image=$IMAGE
require_tools qemu-system-aarch64:qemu-system-arm mcopy:mtools mdir:mtools xz:xz-utils ssh:openssh-client \
  ssh-keygen:openssh-client node:nodejs
[ -f /usr/lib/u-boot/qemu_arm64/u-boot.bin ] ||
  die "missing /usr/lib/u-boot/qemu_arm64/u-boot.bin (Debian package: u-boot-qemu): apt-get install --no-install-recommends u-boot-qemu"
version=$(node -p "require('$REPO/package.json').version")
IFS=. read -r major minor patch <<<"$version"
version_b=$major.$minor.$((patch + 1))
version_c=$major.$minor.$((patch + 2))
version_d=$major.$minor.$((patch + 3))
bundle_b=$OUT/vigil-$version_b-arm64-test-migration.raucb
bundle_c=$OUT/vigil-$version_c-arm64-test-unhealthy.raucb
bundle_d=$OUT/vigil-$version_d-arm64-test-unconfirmed.raucb
bundle_older=$OUT/vigil-$version-arm64.raucb
# Missing and stale bundles are built while the first boot runs (step 1 needs only the card); a failed build leaves
# BUNDLE.failed, which update-check.js reports instead of waiting.
mkdir -p "$OUT"
rm -f "$bundle_b.failed" "$bundle_c.failed" "$bundle_d.failed" "$bundle_older.failed"
# Compiled once, here: the bundle builds below reuse this dist rather than rebuild it under the check.
(cd "$REPO" && bash build.sh)
export VIGIL_DIST_READY=1
(
  bundle_is_current "$bundle_b" "$image" || bash "$IMAGE_DIR/build-image.sh" --bundle --version "$version_b" --test-migration \
    >"$OUT/bundle-b.log" 2>&1 || { touch "$bundle_b.failed"; exit 0; }
  bundle_is_current "$bundle_c" "$image" || bash "$IMAGE_DIR/build-image.sh" --bundle --version "$version_c" --test-unhealthy \
    >"$OUT/bundle-c.log" 2>&1 || { touch "$bundle_c.failed"; exit 0; }
  bundle_is_current "$bundle_d" "$image" || bash "$IMAGE_DIR/build-image.sh" --bundle --version "$version_d" --test-unconfirmed \
    >"$OUT/bundle-d.log" 2>&1 || { touch "$bundle_d.failed"; exit 0; }
  bundle_is_current "$bundle_older" "$image" || bash "$IMAGE_DIR/build-image.sh" --bundle >"$OUT/bundle-older.log" 2>&1 ||
    touch "$bundle_older.failed"
) &
builder=$!
trap 'kill $builder 2>/dev/null || true' EXIT
echo "update-check: $image; bundles $bundle_b, $bundle_c, $bundle_d, $bundle_older (build logs: $OUT/bundle-*.log)"
node "$REPO/dist/image/tools/update-check.js" --image "$image" --bundle-b "$bundle_b" --bundle-c "$bundle_c" \
  --bundle-d "$bundle_d" --older "$bundle_older" --work "$OUT/update-check"
