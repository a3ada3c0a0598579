#!/usr/bin/env bash
# Test-only changes to an assembled root, for the bundles ./build.sh update-check installs
# (docs/image.md "Test bundles"). Never in a release: build-image.sh applies them only to bundles built
# with --test-migration or --test-unhealthy, whose file names say so.
#   test-variants.sh migration|unhealthy|unconfirmed ROOT
#   test-variants.sh deb-change ROOT PACKAGE
set -euo pipefail
root=$2
case "$1" in
  migration)
    # One additive migration (a probe table older code ignores, readableFrom 6 as docs/store.md asks),
    # appended to the compiled migration list: the source tree stays free of test schema.
    js=$root/opt/vigil/dist/src/store/migrations.js
    grep -q '^export const MIGRATIONS' "$js" || { echo "error: no MIGRATIONS list in $js" >&2; exit 1; }
    cat >> "$js" <<'JS'
// ./build.sh bundle --test-migration (image/test-variants.sh): one additive probe migration.
MIGRATIONS.push({ version: MIGRATIONS[MIGRATIONS.length - 1].version + 1, name: 'update-check probe', up: 'CREATE TABLE update_check_probe (id INTEGER PRIMARY KEY, note TEXT)', readableFrom: 6 });
JS
    echo "test variant: probe migration appended to $js"
    ;;
  unhealthy)
    # A gateway that never becomes healthy: its start fails every time.
    mkdir -p "$root/etc/systemd/system/vigil.service.d"
    printf '# ./build.sh bundle --test-unhealthy: this gateway never starts (image/test-variants.sh).\n[Service]\nExecStart=\nExecStart=/bin/sh -c "echo vigil: test bundle, this gateway never becomes healthy >&2; exit 1"\n' \
      > "$root/etc/systemd/system/vigil.service.d/90-test-unhealthy.conf"
    echo "test variant: vigil.service fails to start"
    ;;
  unconfirmed)
    # A gateway that runs but is never confirmed: a unit started before it holds the DC-09 receiver's
    # port (9000, image/tools/card.ts RX_PORT), so "every receiver listening" never holds; and the trial
    # deadline is 4 minutes instead of 15, so vigil-trial-deadline rolls the slot back within the check.
    printf '# ./build.sh bundle --test-unconfirmed (image/test-variants.sh): holds the receiver port.\n[Unit]\nBefore=vigil.service\n[Service]\nUser=nobody\nExecStart=/usr/bin/node -e "require(\x27net\x27).createServer().listen(9000)"\n[Install]\nWantedBy=multi-user.target\n' \
      > "$root/etc/systemd/system/vigil-test-port-squatter.service"
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    ln -sf ../vigil-test-port-squatter.service "$root/etc/systemd/system/multi-user.target.wants/vigil-test-port-squatter.service"
    mkdir -p "$root/etc/systemd/system/vigil-trial-deadline.timer.d"
    printf '# ./build.sh bundle --test-unconfirmed (image/test-variants.sh).\n[Timer]\nOnBootSec=\nOnBootSec=4min\n' \
      > "$root/etc/systemd/system/vigil-trial-deadline.timer.d/90-test.conf"
    echo "test variant: port 9000 taken before the gateway starts; trial deadline 4 min"
    ;;
  deb-change)
    # One Debian package at another version, the size of a security update (docs/image.md "Figures"):
    # PACKAGE as the trixie release has it, where the image carries trixie-security's or trixie-updates'.
    # The image's own apt sources; the host's resolver for the lookup; nothing of apt's lists stays.
    package=${3:?deb-change needs a package}
    cp -a "$root/etc/resolv.conf" "$root/etc/resolv.conf.vigil-test" 2>/dev/null || true
    cp --remove-destination /etc/resolv.conf "$root/etc/resolv.conf"
    before=$(chroot "$root" dpkg-query -W -f '${Version}' "$package")
    chroot "$root" apt-get update -qq
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades --no-install-recommends \
      "$package/trixie" >/dev/null
    after=$(chroot "$root" dpkg-query -W -f '${Version}' "$package")
    chroot "$root" apt-get clean
    rm -rf "$root"/var/lib/apt/lists/*
    rm -f "$root/etc/resolv.conf"
    [ ! -e "$root/etc/resolv.conf.vigil-test" ] || mv "$root/etc/resolv.conf.vigil-test" "$root/etc/resolv.conf"
    [ "$before" != "$after" ] || { echo "error: $package is $before in the image and in trixie: pick a package with an update" >&2; exit 1; }
    echo "test variant: $package $before -> $after"
    ;;
  *) echo "usage: test-variants.sh migration|unhealthy|unconfirmed ROOT | deb-change ROOT PACKAGE" >&2; exit 2 ;;
esac
