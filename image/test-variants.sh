#!/usr/bin/env bash
# Test-only changes to an assembled root, for the bundles ./build.sh update-check installs
# (docs/image.md "Test bundles"). Never in a release: build-image.sh applies them only to bundles built
# with --test-migration or --test-unhealthy, whose file names say so.
#   test-variants.sh migration|unhealthy ROOT
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
  *) echo "usage: test-variants.sh migration|unhealthy ROOT" >&2; exit 2 ;;
esac
