#!/usr/bin/env bash
# The boot chain of the image (docs/image.md "Slots and boot"), called by build-image.sh after
# raspi-firmware's hook wrote the boot partition:
#   install-boot.sh IMAGE_DIR ROOT KERNEL_VERSION
# - each slot boots its own kernel and initrd: /boot/vmlinuz and /boot/initrd.img of that root (hard links,
#   U-Boot reads plain files);
# - the Pi firmware starts U-Boot (Debian's u-boot-rpi, rpi_arm64) instead of the kernel;
# - boot.scr (image/boot/boot.cmd) picks the slot; the first boot state: slot A with 3 tries, slot B (empty
#   until the first update) with none.
set -euo pipefail
image_dir=$1
root=$2
kernel=$3
fw=$root/boot/firmware
ln -f "$root/boot/vmlinuz-$kernel" "$root/boot/vmlinuz"
ln -f "$root/boot/initrd.img-$kernel" "$root/boot/initrd.img"
uboot=$root/usr/lib/u-boot/rpi_arm64/u-boot.bin
[ -f "$uboot" ] || { echo "error: $uboot is missing (u-boot-rpi in image/packages.txt)" >&2; exit 1; }
install -m 0644 "$uboot" "$fw/u-boot.bin"
# The firmware loads U-Boot as its "kernel"; the kernel and initrd copies raspi-firmware put on the
# boot partition are not used (a slot's own are), so they go.
sed -i -e 's/^kernel=.*/kernel=u-boot.bin/' -e '/^initramfs /d' "$fw/config.txt"
grep -q '^kernel=u-boot.bin' "$fw/config.txt" || sed -i '1i kernel=u-boot.bin' "$fw/config.txt"
grep -q '^arm_64bit=1' "$fw/config.txt" || sed -i '1i arm_64bit=1' "$fw/config.txt"
# cmdline.txt too: boot.scr sets the kernel command line (root=PARTUUID of the chosen slot).
rm -f "$fw"/vmlinuz-* "$fw"/initrd.img-* "$fw/cmdline.txt"
mkimage -A arm64 -O linux -T script -C none -n "Vigil A/B boot" -d "$image_dir/boot/boot.cmd" "$fw/boot.scr" >/dev/null
printf 'BOOT_A_LEFT=3\nBOOT_A_TRIAL=0\nBOOT_B_LEFT=0\nBOOT_B_TRIAL=0\nBOOT_ORDER=A B\nVIGIL_END=1\n' > "$fw/vigil-boot.bak"
cp "$fw/vigil-boot.bak" "$fw/vigil-boot.env"
echo "boot: U-Boot ($(strings "$uboot" | grep -m1 -o 'U-Boot 20[0-9.]*' || echo '?')), boot.scr, slot kernel $kernel"
echo "config.txt: $(grep -E '^(kernel|arm_64bit)=' "$fw/config.txt" | tr '\n' ' ')"
