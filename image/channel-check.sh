#!/usr/bin/env bash
# ./build.sh channel-check [IMAGE.img|IMAGE.img.xz] — proves the update channel on the emulated board: the
# box polls a signed manifest on an HTTPS server on the host's loopback and installs releases by RAUC's
# HTTP streaming, adaptive, by itself (docs/image.md "channel-check"). Default image: the newest
# build/vigil-*-arm64.img(.xz). The bundles it publishes are built first when missing or older than the
# image (the same tree and cached stages), while the first boot runs:
#   +11 patch: a version bump (adaptive);   +12: --test-unhealthy;   +13: --test-deb-change;
#   +14: a version bump (the power cut);    +15: --no-adaptive (the full fetch, and the stalled server).
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"
OUT=${VIGIL_IMAGE_OUT:-$REPO/build}

USAGE="./build.sh channel-check [IMAGE.img.xz|IMAGE.img]"
parse_image_args "$USAGE" "$@"

require_root channel-check
pick_image "$IMAGE_ARG" "$OUT"
image=$IMAGE
require_tools qemu-system-aarch64:qemu-system-arm mcopy:mtools mdir:mtools xz:xz-utils ssh:openssh-client \
  ssh-keygen:openssh-client node:nodejs openssl:openssl rauc:rauc mksquashfs:squashfs-tools
[ -f /usr/lib/u-boot/qemu_arm64/u-boot.bin ] ||
  die "missing /usr/lib/u-boot/qemu_arm64/u-boot.bin (Debian package: u-boot-qemu): apt-get install --no-install-recommends u-boot-qemu"
version=$(node -p "require('$REPO/package.json').version")
IFS=. read -r major minor patch <<<"$version"
v() { echo "$major.$minor.$((patch + $1))"; }
bump=$OUT/vigil-$(v 11)-arm64.raucb
unhealthy=$OUT/vigil-$(v 12)-arm64-test-unhealthy.raucb
deb=$OUT/vigil-$(v 13)-arm64-test-deb-change.raucb
cut=$OUT/vigil-$(v 14)-arm64.raucb
full=$OUT/vigil-$(v 15)-arm64-full.raucb
mkdir -p "$OUT"
rm -f "$bump.failed" "$unhealthy.failed" "$deb.failed" "$cut.failed" "$full.failed"
# Compiled once, here: the bundle builds below reuse this dist rather than rebuild it under the check.
(cd "$REPO" && bash build.sh)
export VIGIL_DIST_READY=1
build() { # build BUNDLE LOG ARGS...: a missing or stale bundle, or BUNDLE.failed
  local bundle=$1 log=$2
  shift 2
  bundle_is_current "$bundle" "$image" || bash "$IMAGE_DIR/build-image.sh" --bundle "$@" >"$log" 2>&1 || touch "$bundle.failed"
}
(
  build "$bump" "$OUT/channel-bundle-bump.log" --version "$(v 11)"
  build "$unhealthy" "$OUT/channel-bundle-unhealthy.log" --version "$(v 12)" --test-unhealthy
  build "$deb" "$OUT/channel-bundle-deb.log" --version "$(v 13)" --test-deb-change
  build "$cut" "$OUT/channel-bundle-cut.log" --version "$(v 14)"
  build "$full" "$OUT/channel-bundle-full.log" --version "$(v 15)" --no-adaptive
) &
builder=$!
trap 'kill $builder 2>/dev/null || true' EXIT
echo "channel-check: $image; bundles in $OUT (build logs: $OUT/channel-bundle-*.log)"
node "$REPO/dist/image/tools/channel-check.js" --image "$image" --bump "$bump" --unhealthy "$unhealthy" --deb "$deb" \
  --cut "$cut" --full "$full" --work "$OUT/channel-check" --out "$OUT"
