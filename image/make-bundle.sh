#!/usr/bin/env bash
# A signed RAUC bundle (format verity) holding one root file system image for the A/B slots
# (docs/image.md "System updates"), adaptive (block-hash-index) so that a box streaming it over HTTP
# fetches only the blocks its slots lack (docs/image.md "Streaming and adaptive updates"). Called by
# build-image.sh:
#   make-bundle.sh ROOT_EXT4 VERSION CERT KEY KEYRING OUT.raucb WORKDIR [adaptive|full]
set -euo pipefail
rootfs=$1 version=$2 cert=$3 key=$4 keyring=$5 out=$6 work=$7 mode=${8:-adaptive}
# The squashfs block is what a streamed read fetches at least: smaller blocks fetch fewer unchanged bytes
# around a changed one, larger ones compress better (docs/image.md "Figures").
squashfs_block=${VIGIL_SQUASHFS_BLOCK:-64k}
adaptive=""
[ "$mode" = full ] || adaptive="adaptive=block-hash-index"

rm -rf "$work" && mkdir -p "$work/content"
# A hard link when the work dir shares the file system, else a sparse copy: the image is mostly empty.
ln "$rootfs" "$work/content/rootfs.ext4" 2>/dev/null || cp --sparse=always "$rootfs" "$work/content/rootfs.ext4"
cat > "$work/content/manifest.raucm" <<MANIFEST
[update]
compatible=vigil-rpi-arm64
version=$version
description=Vigil $version root file system (slot A or B)

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
$adaptive
MANIFEST
rm -f "$out"
rauc bundle --cert="$cert" --key="$key" --keyring="$keyring" --mksquashfs-args="-b $squashfs_block" \
  "$work/content" "$out.partial" >"$work/rauc-bundle.log" 2>&1 ||
  { tail -20 "$work/rauc-bundle.log"; echo "error: rauc bundle failed (log: $work/rauc-bundle.log)" >&2; exit 1; }
rauc info --keyring="$keyring" "$out.partial" >"$work/rauc-info.log" 2>&1 ||
  { cat "$work/rauc-info.log"; echo "error: the new bundle does not verify against $keyring" >&2; exit 1; }
mv "$out.partial" "$out"
rm -rf "$work/content"
