#!/usr/bin/env bash
# ./build.sh image-check [--soak MINUTES] [IMAGE.img.xz] — boots the built image in qemu-system-aarch64 and
# proves it works (docs/image.md). Default image: the newest build/vigil-*-arm64.img.xz. --soak sets the
# watchdog soak under DC-09 + SSH load (default 5 minutes; `--soak 60` is the hour docs/watchdog.md reports).
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"
OUT=${VIGIL_IMAGE_OUT:-$REPO/build}

require_root image-check
require_tools qemu-system-aarch64:qemu-system-arm mcopy:mtools mdir:mtools mtype:mtools xz:xz-utils \
  ssh:openssh-client ssh-keygen:openssh-client node:nodejs
# The emulated board boots through U-Boot like a Pi (docs/image.md "Slots and boot").
[ -f /usr/lib/u-boot/qemu_arm64/u-boot.bin ] ||
  die "missing /usr/lib/u-boot/qemu_arm64/u-boot.bin (Debian package: u-boot-qemu): apt-get install --no-install-recommends u-boot-qemu"
soak=5
if [ "${1:-}" = --soak ]; then
  [[ "${2:-}" =~ ^[1-9][0-9]{0,3}$ ]] || die "--soak takes whole minutes (1..1440), got '${2:-}'"
  soak=$2
  shift 2
fi
image=${1:-$(ls -t "$OUT"/vigil-*-arm64.img.xz 2>/dev/null | head -1)}
[ -n "$image" ] && [ -f "$image" ] || die "no image to check: run ./build.sh image first (looked in $OUT)"
if [ -f "$image.sha256" ]; then
  (cd "$(dirname "$image")" && sha256sum --quiet -c "$(basename "$image").sha256") || die "$image does not match its .sha256"
fi
# The check runs this checkout's tools, never a dist/ left from an older checkout.
(cd "$REPO" && bash build.sh)
echo "image-check: $image"
exec node "$REPO/dist/image/tools/image-check.js" --image "$image" --work "$OUT/image-check" --soak "$soak"
