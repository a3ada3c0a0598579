#!/usr/bin/env bash
# ./build.sh image  — the flashable arm64 SD image, from Debian's archive alone (docs/image.md).
# ./build.sh bundle — the signed RAUC update bundle of the same build (docs/image.md "System updates").
# One recipe for both: checks, app (compile + production deps cross-built for arm64), base root
# (mmdebstrap, cached by recipe hash), assemble (overlay, systemd units, app, boot loader, smoke test
# under qemu-user), manifest, genimage (whose root file system image is the bundle's slot image); then
# compress (image: build/vigil-<version>-arm64.img.xz, .sha256, .manifest.txt) or sign (bundle:
# build/vigil-<version>-arm64.raucb).
set -euo pipefail
IMAGE_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(dirname "$IMAGE_DIR")
# shellcheck source=lib.sh
. "$IMAGE_DIR/lib.sh"

SUITE=trixie
MIRROR=${VIGIL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${VIGIL_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
OUT=${VIGIL_IMAGE_OUT:-$REPO/build}
WORK=$OUT/image-work
CACHE=$OUT/image-cache
BOOT_MIB=256
DATA_MIB=64
# Both slots have this size whatever the root holds: a later, larger root must still fit the slot an
# older image made. 1536 MiB is about twice today's root; the card needs 4 GB at least.
SLOT_MIB=1536
FRESH=0
BASE_ONLY=0
APP_ONLY=0
RAW=0
BUNDLE=0
VERSION_OVERRIDE=""
TEST_MIGRATION=0
TEST_UNHEALTHY=0
TEST_UNCONFIRMED=0
NO_ADAPTIVE=0
TEST_DEB_CHANGE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --fresh) FRESH=1 ;;
    --base-only) BASE_ONLY=1 ;;
    --app-only) APP_ONLY=1 ;;
    --raw) RAW=1 ;;
    --bundle) BUNDLE=1 ;;
    --version) shift; VERSION_OVERRIDE=${1:-} ;;
    --version=*) VERSION_OVERRIDE=${1#--version=} ;;
    --test-migration) TEST_MIGRATION=1 ;;
    --test-unhealthy) TEST_UNHEALTHY=1 ;;
    --test-unconfirmed) TEST_UNCONFIRMED=1 ;;
    --no-adaptive) NO_ADAPTIVE=1 ;;
    --test-deb-change) TEST_DEB_CHANGE=auto ;;
    --test-deb-change=*) TEST_DEB_CHANGE=${1#--test-deb-change=} ;;
    *) die "unknown option '$1' (options: --fresh rebuilds the cached base root and dependencies; --base-only stops after the base root; --app-only builds only the app and its cached dependencies (beside a running --base-only); --raw leaves build/NAME.img uncompressed; bundles: --version X.Y.Z, --no-adaptive, --test-migration, --test-unhealthy, --test-unconfirmed, --test-deb-change[=PACKAGE])" ;;
  esac
  shift
done
if [ "$BUNDLE" = 0 ] && { [ "$NO_ADAPTIVE" = 1 ] || [ -n "$TEST_DEB_CHANGE" ] || [ "$TEST_MIGRATION" = 1 ] || [ "$TEST_UNHEALTHY" = 1 ] || [ "$TEST_UNCONFIRMED" = 1 ]; }; then
  die "--no-adaptive and the --test-* options are for bundles only (./build.sh bundle ...)"
fi
if [ -n "$VERSION_OVERRIDE" ] && ! [[ "$VERSION_OVERRIDE" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  die "--version must be X.Y.Z, got '$VERSION_OVERRIDE'"
fi

stage "checks"
require_root image
require_tools mmdebstrap:mmdebstrap genimage:genimage mkdosfs:dosfstools mke2fs:e2fsprogs mcopy:mtools \
  xz:xz-utils qemu-aarch64-static:qemu-user-static update-binfmts:binfmt-support \
  aarch64-linux-gnu-g++:g++-aarch64-linux-gnu aarch64-linux-gnu-readelf:binutils-aarch64-linux-gnu \
  node:nodejs npm:npm sha256sum:coreutils arch-test:arch-test mkimage:u-boot-tools openssl:openssl
[ "$BUNDLE" = 0 ] || require_tools rauc:rauc mksquashfs:squashfs-tools
require_binfmt_aarch64
# The app stage compiles with the checkout's own TypeScript: refuse now, not after the base stage.
[ -x "$REPO/node_modules/.bin/tsc" ] ||
  die "the checkout has no node_modules (the app stage compiles with its TypeScript): run 'npm ci' in $REPO first"
VERSION=${VERSION_OVERRIDE:-$(node -p "require('$REPO/package.json').version")}
NAME=vigil-$VERSION-arm64
mkdir -p "$OUT" "$WORK" "$CACHE"
# The signing pair and the keyring the image carries: the operator's (VIGIL_SIGNING_CERT/KEY,
# VIGIL_KEYRING) or a development CA made on first use in build/keys/ (never committed).
signing_keys "$OUT/keys"
echo "$([ "$BUNDLE" = 1 ] && echo bundle || echo image) $NAME; work dir $WORK; keyring $KEYRING"

# ---------------------------------------------------------------- base root (cached)
mapfile -t PACKAGES < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$IMAGE_DIR/packages.txt")
MMDEBSTRAP_ARGS=(
  --mode=root --format=tar --variant=apt --architectures=arm64 --components=main,non-free-firmware
  --include="$(IFS=,; echo "${PACKAGES[*]}")"
  --aptopt='Acquire::Retries "3"'
  # Documentation and translations are dead weight on an appliance (copyright files stay).
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias'
  --customize-hook="$IMAGE_DIR/hooks/customize-base.sh"
)
SOURCES=(
  "deb $MIRROR $SUITE main non-free-firmware"
  "deb $MIRROR $SUITE-updates main non-free-firmware"
  "deb $SECURITY_MIRROR $SUITE-security main non-free-firmware"
)
BASE_KEY=$( (printf '%s\n' "${MMDEBSTRAP_ARGS[@]}" "${SOURCES[@]}"; cat "$IMAGE_DIR/packages.txt" "$IMAGE_DIR/hooks/customize-base.sh") | sha256sum | cut -c1-16)
BASE_TAR=$CACHE/base-$SUITE-arm64-$BASE_KEY.tar
stage "base root (mmdebstrap $SUITE arm64)"
if [ "$APP_ONLY" = 1 ]; then
  echo "skipped (--app-only)"
elif [ "$FRESH" = 1 ] || [ ! -s "$BASE_TAR" ]; then
  rm -f "$BASE_TAR.partial"
  mmdebstrap "${MMDEBSTRAP_ARGS[@]}" "$SUITE" "$BASE_TAR.partial" "${SOURCES[@]}"
  mv "$BASE_TAR.partial" "$BASE_TAR"
else
  echo "reusing cached base root $BASE_TAR (--fresh rebuilds it)"
fi
if [ "$BASE_ONLY" = 1 ]; then stage ""; exit 0; fi

# ---------------------------------------------------------------- app
stage "app (compile, production deps for arm64)"
# update-check compiles first and then builds its bundles while its own tools run from dist: it says
# so (VIGIL_DIST_READY=1), and the tree is not compiled (dist removed) under them.
[ "${VIGIL_DIST_READY:-0}" = 1 ] || (cd "$REPO" && bash build.sh)
APP=$WORK/app
rm -rf "$APP" && mkdir -p "$APP/dist"
cp -a "$REPO/dist/src" "$APP/dist/"
[ -d "$REPO/dist/hw" ] && cp -a "$REPO/dist/hw" "$APP/dist/"
cp "$REPO/package.json" "$REPO/package-lock.json" "$APP/"
find "$APP/dist" -name '*.map' -delete
# Production dependencies with their native addons cross-built for arm64, cached by the lockfile, the
# host's Node and cross compiler, and this block of the script (--fresh rebuilds them).
DEPS_KEY=$( (cat "$APP/package-lock.json"; node --version; aarch64-linux-gnu-g++ --version | head -1
  sed -n '/^# >>> deps/,/^# <<< deps/p' "$IMAGE_DIR/build-image.sh") | sha256sum | cut -c1-16)
DEPS_TAR=$CACHE/node_modules-arm64-$DEPS_KEY.tar
if [ "$FRESH" = 0 ] && [ -s "$DEPS_TAR" ]; then
  echo "reusing cached production dependencies $DEPS_TAR"
  tar -C "$APP" -xf "$DEPS_TAR"
else
# >>> deps
  (cd "$APP" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
  NODE_GYP=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  NODE_HEADERS=$(node -p "require('path').resolve(process.execPath, '../..')")
  for module in better-sqlite3 epoll unix-dgram; do
    [ -d "$APP/node_modules/$module" ] || continue
    echo "cross-compiling $module for arm64"
    (cd "$APP/node_modules/$module" &&
      CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++ LINK=aarch64-linux-gnu-g++ AR=aarch64-linux-gnu-ar \
        node "$NODE_GYP" rebuild --arch=arm64 --nodedir="$NODE_HEADERS" --jobs=2 --loglevel=error >"$WORK/gyp-$module.log" 2>&1) ||
      { tail -30 "$WORK/gyp-$module.log"; die "cross-compiling $module failed (log: $WORK/gyp-$module.log)"; }
  done
  # Keep only what runs: compiled addons, not their sources, objects or other platforms' prebuilds.
  rm -rf "$APP/node_modules/better-sqlite3/deps" "$APP/node_modules/better-sqlite3/src" \
    "$APP"/node_modules/*/build/Release/obj* "$APP"/node_modules/*/build/Release/.deps \
    "$APP/node_modules/better-sqlite3/build/Release/test_extension.node"
  find "$APP/node_modules" -type d -path '*/prebuilds/*' ! -name 'linux-arm64' -prune -exec rm -rf {} +
  while IFS= read -r addon; do
    aarch64-linux-gnu-readelf -h "$addon" | grep -q 'AArch64' || die "$addon is not an arm64 binary"
  done < <(find "$APP/node_modules" -name '*.node')
# <<< deps
  tar -C "$APP" -cf "$DEPS_TAR.partial" node_modules && mv "$DEPS_TAR.partial" "$DEPS_TAR"
fi
echo "native addons: $(find "$APP/node_modules" -name '*.node' | sed "s|$APP/node_modules/||" | tr '\n' ' ')"
if [ "$APP_ONLY" = 1 ]; then stage ""; exit 0; fi

# ---------------------------------------------------------------- assemble
stage "assemble root"
ROOT=$WORK/rootfs
# A run that died mid-way may have left kernel file systems mounted inside: never delete through them.
for m in dev/pts dev sys proc; do mountpoint -q "$ROOT/$m" 2>/dev/null && umount -l "$ROOT/$m"; done
rm -rf --one-file-system "$ROOT" && mkdir -p "$ROOT"
tar -C "$ROOT" --numeric-owner --xattrs --xattrs-include='*' -xpf "$BASE_TAR"
# Kernel file systems for the chroot steps below (maintainer hooks look at /proc), gone again on exit.
unmount_chroot() { for m in dev/pts dev sys proc; do mountpoint -q "$ROOT/$m" && umount -l "$ROOT/$m"; done; return 0; }
trap unmount_chroot EXIT
mount -t proc proc "$ROOT/proc" && mount -t sysfs sys "$ROOT/sys" && mount --bind /dev "$ROOT/dev" && mount --bind /dev/pts "$ROOT/dev/pts"
cp -a "$IMAGE_DIR/overlay/." "$ROOT/"
chown -R root:root "$ROOT/etc/systemd" "$ROOT/usr/lib/vigil" "$ROOT/etc/rauc" "$ROOT/etc/dbus-1" "$ROOT/etc/modules-load.d"
install -m 0644 -o root -g root "$KEYRING" "$ROOT/etc/rauc/keyring.pem"
bash "$IMAGE_DIR/install-repo-files.sh" "$REPO" "$ROOT"
# Mount point of the data partition (the root is read-only at run time: it must exist in the image).
install -d -m 0700 "$ROOT/var/lib/vigil"
mkdir -p "$ROOT/opt/vigil"
cp -a "$APP/." "$ROOT/opt/vigil/"
chown -R root:root "$ROOT/opt/vigil"
# An example setup file on the boot partition: what an installer copies to vigil-setup.txt.
cp "$IMAGE_DIR/vigil-setup.example.txt" "$ROOT/boot/firmware/vigil-setup.example.txt"
chroot "$ROOT" systemd-sysusers >/dev/null
chroot "$ROOT" systemctl enable systemd-networkd.service systemd-resolved.service systemd-timesyncd.service \
  vigil-first-boot.service vigil.service vigil-reboot.path vigil-trial-deadline.timer vigil-boot-state.service >/dev/null 2>&1 ||
  die "enabling units failed: $(chroot "$ROOT" systemctl enable vigil-first-boot.service vigil.service 2>&1 | tail -3)"
# systemd-firstboot would wait for answers on the console of a box nobody is looking at.
chroot "$ROOT" systemctl mask systemd-firstboot.service >/dev/null 2>&1
# Without a real-time clock the Pi starts at this time, not at systemd's build date, until NTP answers.
touch "$ROOT/usr/lib/clock-epoch"
# config.txt again, now with hw/boot's lines (/etc/default/raspi-firmware-custom); install-boot.sh then
# makes U-Boot the firmware's "kernel" and drops raspi-firmware's kernel, initrd and cmdline.txt.
KERNEL_VERSION=$(ls "$ROOT"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
DEB_MAINT_PARAMS=configure chroot "$ROOT" /etc/kernel/postinst.d/z50-raspi-firmware "$KERNEL_VERSION" "/boot/vmlinuz-$KERNEL_VERSION"
bash "$IMAGE_DIR/install-boot.sh" "$IMAGE_DIR" "$ROOT" "$KERNEL_VERSION"
if [ -n "$VERSION_OVERRIDE" ]; then
  node -e "const f='$ROOT/opt/vigil/package.json',p=JSON.parse(require('fs').readFileSync(f));p.version='$VERSION';require('fs').writeFileSync(f,JSON.stringify(p,null,2)+'\\n')"
fi
[ "$TEST_MIGRATION" = 0 ] || bash "$IMAGE_DIR/test-variants.sh" migration "$ROOT"
[ "$TEST_UNHEALTHY" = 0 ] || bash "$IMAGE_DIR/test-variants.sh" unhealthy "$ROOT"
[ "$TEST_UNCONFIRMED" = 0 ] || bash "$IMAGE_DIR/test-variants.sh" unconfirmed "$ROOT"
[ -z "$TEST_DEB_CHANGE" ] || bash "$IMAGE_DIR/test-variants.sh" deb-change "$ROOT" $([ "$TEST_DEB_CHANGE" = auto ] || echo "$TEST_DEB_CHANGE")

stage "smoke test under qemu-user"
[ "$(chroot "$ROOT" /usr/bin/node /opt/vigil/dist/src/cli.js version)" = "$VERSION" ] ||
  die "the assembled root reports version $(chroot "$ROOT" /usr/bin/node /opt/vigil/dist/src/cli.js version), not $VERSION"
echo "vigil version $VERSION"
chroot "$ROOT" /usr/bin/node -e "
  const Database = require('/opt/vigil/node_modules/better-sqlite3');
  const db = new Database(':memory:');
  if (db.prepare('select sqlite_version() as v').get().v.length === 0) process.exit(1);
  require('/opt/vigil/node_modules/epoll');
  console.log('better-sqlite3 and epoll load on arm64 node', process.version);
"

unmount_chroot

stage "manifest"
MANIFEST=$WORK/manifest.txt
node "$REPO/dist/image/tools/manifest.js" --root "$ROOT" --app "$ROOT/opt/vigil" --name "$NAME" \
  --sources "$(printf '%s;' "${SOURCES[@]}")" --commit "$(git -C "$REPO" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)" > "$MANIFEST"
mkdir -p "$ROOT/usr/share/vigil"
cp "$MANIFEST" "$ROOT/usr/share/vigil/manifest.txt"
cp "$MANIFEST" "$OUT/$NAME.manifest.txt"

stage "genimage"
ROOT_KIB=$(du -sk --exclude=./boot/firmware "$ROOT" | cut -f1)
GEN=$WORK/genimage
rm -rf "$GEN" && mkdir -p "$GEN/out" "$GEN/in"
node "$REPO/dist/image/tools/render-genimage.js" --image "$NAME.img" --boot-mib "$BOOT_MIB" \
  --root-used-kib "$ROOT_KIB" --slot-mib "$SLOT_MIB" --data-mib "$DATA_MIB" > "$GEN/genimage.cfg"
rm -rf "$GEN/tmp"
# One fixed time for the file systems' own timestamps (with the root's fixed UUID and hash seed,
# genimage-config.ts): two builds of one tree give the same blocks where their files are the same.
E2FSPROGS_FAKE_TIME=1767225600 \
  genimage --config "$GEN/genimage.cfg" --rootpath "$ROOT" --tmppath "$GEN/tmp" --inputpath "$GEN/in" --outputpath "$GEN/out" >"$GEN/genimage.log" 2>&1 ||
  { tail -30 "$GEN/genimage.log"; die "genimage failed (log: $GEN/genimage.log)"; }
rm -rf "$GEN/tmp"

if [ "$BUNDLE" = 1 ]; then
  stage "bundle (RAUC, verity, signed)"
  SUFFIX=""
  [ "$TEST_MIGRATION" = 0 ] || SUFFIX="$SUFFIX-test-migration"
  [ "$TEST_UNHEALTHY" = 0 ] || SUFFIX="$SUFFIX-test-unhealthy"
  [ "$TEST_UNCONFIRMED" = 0 ] || SUFFIX="$SUFFIX-test-unconfirmed"
  [ -z "$TEST_DEB_CHANGE" ] || SUFFIX="$SUFFIX-test-deb-change"
  [ "$NO_ADAPTIVE" = 0 ] || SUFFIX="$SUFFIX-full"
  BUNDLE_OUT=$OUT/$NAME$SUFFIX.raucb
  # The slot image is genimage's root.ext4: byte for byte what slot A of this build's card holds.
  bash "$IMAGE_DIR/make-bundle.sh" "$GEN/out/root.ext4" "$VERSION" "$SIGNING_CERT" "$SIGNING_KEY" "$KEYRING" "$BUNDLE_OUT" "$WORK/bundle" \
    "$([ "$NO_ADAPTIVE" = 1 ] && echo full || echo adaptive)"
  stage ""
  printf 'bundle:    %s (%s MiB)\n' "$BUNDLE_OUT" "$(( $(stat -c %s "$BUNDLE_OUT") / 1048576 ))"
  echo "total:     $(elapsed $(( $(date +%s) - IMAGE_T0 )))"
  exit 0
fi

if [ "$RAW" = 1 ]; then
  mv "$GEN/out/$NAME.img" "$OUT/$NAME.img"
  stage ""
  echo "raw image: $OUT/$NAME.img (./build.sh image-check $OUT/$NAME.img)"
  exit 0
fi

stage "compress"
rm -f "$OUT/$NAME.img.xz"
xz -T2 "-${VIGIL_XZ_LEVEL:-6}" -c "$GEN/out/$NAME.img" > "$OUT/$NAME.img.xz"
(cd "$OUT" && sha256sum "$NAME.img.xz" > "$NAME.img.xz.sha256")
stage ""
printf 'image:     %s (%s MiB compressed, %s MiB raw)\n' "$OUT/$NAME.img.xz" \
  "$(( $(stat -c %s "$OUT/$NAME.img.xz") / 1048576 ))" "$(( $(stat -c %s "$GEN/out/$NAME.img") / 1048576 ))"
printf 'installed: root %s MiB used, boot %s MiB used\n' "$((ROOT_KIB / 1024))" "$(( $(du -sk "$ROOT/boot/firmware" | cut -f1) / 1024 ))"
echo "checksum:  $OUT/$NAME.img.xz.sha256"
echo "manifest:  $OUT/$NAME.manifest.txt"
echo "total:     $(elapsed $(( $(date +%s) - IMAGE_T0 )))"
