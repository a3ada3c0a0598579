#!/bin/sh
# mmdebstrap customize hook for the cached base root: everything here depends only on the package list.
# $1 is the root directory. Runs on the build host; `chroot "$1"` runs arm64 binaries through qemu-user.
set -eu
root="$1"

# Root partition by label (the same on an SD card, /dev/mmcblk0p2, and in qemu, /dev/vda2), mounted
# read-only (`ro` comes after raspi-firmware's `rw`; the kernel takes the last one). Consoles: the
# Pi 3/4 mini UART (ttyS1) and the screen (tty0, last = /dev/console, where the first password shows).
cat > "$root/etc/default/raspi-firmware" <<'CFG'
# Vigil: written by image/hooks/customize-base.sh
ROOTPART=LABEL=vigil-root
CONSOLES="ttyS1,115200 tty0"
CMA=64M
CFG
echo "ro" > "$root/etc/default/raspi-extra-cmdline"
kernel=$(ls "$root"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
DEB_MAINT_PARAMS=configure chroot "$root" /etc/kernel/postinst.d/z50-raspi-firmware "$kernel" /boot/vmlinuz-"$kernel"

# Nothing secret or per-box is baked in: ssh host keys and the machine id are made on the box.
rm -f "$root"/etc/ssh/ssh_host_*
: > "$root/etc/machine-id"
rm -f "$root/var/lib/dbus/machine-id"

# SSH stays off unless first boot installs an authorized key.
chroot "$root" systemctl disable ssh.service ssh.socket >/dev/null 2>&1 || true
# No package maintenance on a read-only appliance root.
for unit in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer; do
  chroot "$root" systemctl mask "$unit" >/dev/null 2>&1 || true
done

rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
