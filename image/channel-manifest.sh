#!/usr/bin/env bash
# ./build.sh channel — writes and signs an update channel manifest (docs/updates.md "Publishing a release"):
#   ./build.sh channel --version X.Y.Z --bundle URL [--wave PERCENT[@TIME]]... [--valid-days N] [--serial N]
#                      [--out FILE]
# --bundle is the bundle's URL, absolute or relative to the manifest's own URL (side by side on one server).
# --wave 5 --wave 25@2026-12-01T02:00:00Z --wave 100@2026-12-03T02:00:00Z: 5 % from now, then 25 % and 100 %
# from those times (default: one wave, 100 % from now). --valid-days (default 7, at most 90): boxes refuse the
# manifest after that, so publish a fresh one before. --serial (default: the current Unix time) must grow
# with every manifest published on a channel. Signed with the bundles' signer (VIGIL_SIGNING_CERT/KEY, or the
# development keys in build/keys/), checked against the keyring before it is kept. Default --out:
# build/channel/channel.cms (the JSON beside it as channel.json, for reading).
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"
OUT_DIR=${VIGIL_IMAGE_OUT:-$REPO/build}

version="" bundle="" valid_days=7 serial=$(date +%s) out=$OUT_DIR/channel/channel.cms
waves=()
while [ $# -gt 0 ]; do
  case "$1" in
    --version) shift; version=${1:-} ;;
    --bundle) shift; bundle=${1:-} ;;
    --wave) shift; waves+=("${1:-}") ;;
    --valid-days) shift; valid_days=${1:-} ;;
    --serial) shift; serial=${1:-} ;;
    --out) shift; out=${1:-} ;;
    *) die "unknown option '$1' (--version X.Y.Z --bundle URL [--wave PERCENT[@TIME]]... [--valid-days N] [--serial N] [--out FILE])" ;;
  esac
  shift
done
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--version must be X.Y.Z, got '$version'"
[ -n "$bundle" ] || die "--bundle names the bundle's URL"
[[ "$valid_days" =~ ^[0-9]+$ ]] && [ "$valid_days" -ge 1 ] && [ "$valid_days" -le 90 ] || die "--valid-days must be 1..90"
[[ "$serial" =~ ^[1-9][0-9]{0,15}$ ]] || die "--serial must be a positive whole number"
[ "${#waves[@]}" -gt 0 ] || waves=(100)
require_tools openssl:openssl node:nodejs
signing_keys "$OUT_DIR/keys"

mkdir -p "$(dirname "$out")"
json=${out%.cms}.json
[ "$json" != "$out" ] || json=$out.json
node - "$version" "$bundle" "$valid_days" "$serial" "${waves[@]}" > "$json.partial" <<'NODE'
const [version, bundle, days, serial, ...waves] = process.argv.slice(2);
const now = new Date();
now.setUTCMilliseconds(0);
const list = waves.map((w) => {
  const [percent, at] = w.split('@');
  if (!/^\d{1,3}$/.test(percent) || Number(percent) > 100) throw new Error(`--wave ${w}: the percent must be 0..100`);
  const from = at ? new Date(at) : now;
  if (Number.isNaN(from.getTime())) throw new Error(`--wave ${w}: the time must be ISO 8601, e.g. 2026-12-01T02:00:00Z`);
  return { from: from.toISOString().replace('.000Z', 'Z'), percent: Number(percent) };
});
const manifest = {
  format: 'vigil-channel-1',
  compatible: 'vigil-rpi-arm64',
  serial: Number(serial),
  issued_at: now.toISOString().replace('.000Z', 'Z'),
  expires_at: new Date(now.getTime() + Number(days) * 86400000).toISOString().replace('.000Z', 'Z'),
  version,
  bundle_url: bundle,
  waves: list,
};
process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
NODE
openssl cms -sign -binary -nodetach -outform PEM -in "$json.partial" -signer "$SIGNING_CERT" -inkey "$SIGNING_KEY" \
  -out "$out.partial"
openssl cms -verify -inform PEM -in "$out.partial" -CAfile "$KEYRING" -no-CApath -no-CAstore -purpose any -binary \
  -out /dev/null 2>/dev/null || die "the signed manifest does not verify against $KEYRING"
mv "$json.partial" "$json" && mv "$out.partial" "$out"
echo "channel manifest: $out (serial $serial, version $version, waves ${waves[*]}, valid $valid_days days; readable copy $json)"
