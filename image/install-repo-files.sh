#!/usr/bin/env bash
# Lays the repository's own system files over the image root: systemd/ (the gateway unit, its user, the
# hardware-watchdog drop-in) and hw/ (udev rules, config.txt lines). Called by build-image.sh.
#   install-repo-files.sh REPO ROOT
set -euo pipefail
repo=$1
root=$2
installed=()
put() { # put SRC DEST MODE
  install -D -m "$3" -o root -g root "$1" "$root/$2"
  installed+=("$2")
}

[ -f "$repo/systemd/vigil.service" ] || { echo "error: $repo/systemd/vigil.service is missing" >&2; exit 1; }
put "$repo/systemd/vigil.service" etc/systemd/system/vigil.service 0644
for f in "$repo"/systemd/system.conf.d/*.conf; do [ -e "$f" ] && put "$f" "etc/systemd/system.conf.d/$(basename "$f")" 0644; done
for f in "$repo"/systemd/sysusers.d/*.conf; do [ -e "$f" ] && put "$f" "usr/lib/sysusers.d/$(basename "$f")" 0644; done
for f in "$repo"/systemd/tmpfiles.d/*.conf; do [ -e "$f" ] && put "$f" "usr/lib/tmpfiles.d/$(basename "$f")" 0644; done
for f in "$repo"/hw/udev/*.rules; do [ -e "$f" ] && put "$f" "etc/udev/rules.d/$(basename "$f")" 0644; done
# raspi-firmware's kernel hook appends /etc/default/raspi-firmware-custom to the generated config.txt.
for f in "$repo"/hw/boot/config-*.txt; do [ -e "$f" ] && put "$f" etc/default/raspi-firmware-custom 0644; done
# Opt-in drop-ins (e.g. low-ports.conf) and the docs the unit names, for technicians on the box.
mkdir -p "$root/opt/vigil"
cp -r "$repo/systemd" "$root/opt/vigil/systemd"
cp -r "$repo/docs" "$root/opt/vigil/docs"
# No sysusers file in systemd/ yet: the unit's User= still needs its account.
if grep -q '^User=vigil' "$root/etc/systemd/system/vigil.service" && [ ! -e "$root/usr/lib/sysusers.d/vigil.conf" ]; then
  echo "error: vigil.service runs as User=vigil but systemd/sysusers.d/vigil.conf is missing" >&2
  exit 1
fi
printf 'installed from the repository: %s\n' "${installed[*]}"
