#!/usr/bin/env bash
# ./build.sh image-check [--soak MINUTES] [IMAGE.img.xz] — boots the built image in qemu-system-aarch64 and
# proves it works (docs/image.md). Default image: the newest build/vigil-*-arm64.img.xz or .img. --soak sets the
# watchdog soak under DC-09 + SSH load (default 5 minutes; `--soak 60` is the hour docs/watchdog.md reports).
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"
OUT=${VIGIL_IMAGE_OUT:-$REPO/build}

USAGE="./build.sh image-check [--soak MINUTES] [IMAGE.img.xz|IMAGE.img]"
soak=5
image_arg=""
while [ $# -gt 0 ]; do
  case "$1" in
    --soak)
      [[ "${2:-}" =~ ^[1-9][0-9]{0,3}$ ]] || usage_error "--soak takes whole minutes (1..1440), got '${2:-}'" "$USAGE"
      soak=$2
      shift
      ;;
    -h | --help) echo "usage: $USAGE"; exit 0 ;;
    -*) usage_error "unknown option '$1'" "$USAGE" ;;
    *) [ -z "$image_arg" ] || usage_error "one image at a time (got '$image_arg' and '$1')" "$USAGE"; image_arg=$1 ;;
  esac
  shift
done

require_root image-check
pick_image "$image_arg" "$OUT"
image=$IMAGE
require_tools qemu-system-aarch64:qemu-system-arm mcopy:mtools mdir:mtools mtype:mtools xz:xz-utils \
  ssh:openssh-client ssh-keygen:openssh-client node:nodejs
# The emulated board boots through U-Boot like a Pi (docs/image.md "Slots and boot").
[ -f /usr/lib/u-boot/qemu_arm64/u-boot.bin ] ||
  die "missing /usr/lib/u-boot/qemu_arm64/u-boot.bin (Debian package: u-boot-qemu): apt-get install --no-install-recommends u-boot-qemu"
if [ -f "$image.sha256" ]; then
  (cd "$(dirname "$image")" && sha256sum --quiet -c "$(basename "$image").sha256") || die "$image does not match its .sha256"
fi
# The check runs this checkout's tools, never a dist/ left from an older checkout.
(cd "$REPO" && bash build.sh)
echo "image-check: $image"
exec node "$REPO/dist/image/tools/image-check.js" --image "$image" --work "$OUT/image-check" --soak "$soak"
