#!/usr/bin/env bash
# Test-only changes to an assembled root, for the bundles ./build.sh update-check installs
# (docs/image.md "Test bundles"). Never in a release: build-image.sh applies them only to bundles built
# with --test-migration or --test-unhealthy, whose file names say so.
#   test-variants.sh migration|unhealthy|unconfirmed ROOT
#   test-variants.sh deb-change ROOT [PACKAGE]
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
    # One Debian package at another version, the size of a security update (docs/image.md "Figures"): the
    # first of the candidates (PACKAGE when given) that the image's own apt sources offer in a version other
    # than the installed one, installed in that version without removing anything. The host's resolver for
    # the lookup; nothing of apt's lists stays.
    cp -a "$root/etc/resolv.conf" "$root/etc/resolv.conf.vigil-test" 2>/dev/null || true
    cp --remove-destination /etc/resolv.conf "$root/etc/resolv.conf"
    chroot "$root" apt-get update -qq
    candidates=${3:-libexpat1 libcurl3t64-gnutls libssl3t64 libgnutls30t64 libxml2 tzdata ca-certificates}
    changed=""
    for package in $candidates; do
      installed=$(chroot "$root" dpkg-query -W -f '${Version}' "$package" 2>/dev/null) || continue
      other=$(chroot "$root" apt-cache madison "$package" | awk -F'|' '{gsub(/ /, "", $2); print $2}' |
        grep -vxF "$installed" | head -n 1 || true)
      [ -n "$other" ] || continue
      if chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades --no-remove \
        --no-install-recommends "$package=$other" >/dev/null; then
        changed="$package $installed -> $other"
        break
      fi
    done
    chroot "$root" apt-get clean
    rm -rf "$root"/var/lib/apt/lists/*
    rm -f "$root/etc/resolv.conf"
    [ ! -e "$root/etc/resolv.conf.vigil-test" ] || mv "$root/etc/resolv.conf.vigil-test" "$root/etc/resolv.conf"
    [ -n "$changed" ] || { echo "error: none of $candidates has another version in the image's sources" >&2; exit 1; }
    echo "test variant: $changed"
    ;;
  *) echo "usage: test-variants.sh migration|unhealthy|unconfirmed ROOT | deb-change ROOT [PACKAGE]" >&2; exit 2 ;;
esac
