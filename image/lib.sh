# Shared by image/build-image.sh and image/image-check.sh: stage progress with elapsed time,
# refusal when not root or when a tool is missing (naming the Debian package that provides it).

IMAGE_T0=$(date +%s)
IMAGE_STAGE_T0=$IMAGE_T0
IMAGE_STAGE_NAME=""

elapsed() { # seconds -> "3m07s"
  local s=$1
  printf '%dm%02ds' $((s / 60)) $((s % 60))
}

stage() {
  local now
  now=$(date +%s)
  if [ -n "$IMAGE_STAGE_NAME" ]; then
    printf '==> done:  %-28s %s (total %s)\n' "$IMAGE_STAGE_NAME" "$(elapsed $((now - IMAGE_STAGE_T0)))" "$(elapsed $((now - IMAGE_T0)))"
  fi
  IMAGE_STAGE_NAME="$1"
  IMAGE_STAGE_T0=$now
  [ -n "$1" ] && printf '==> stage: %s  [at %s]\n' "$1" "$(elapsed $((now - IMAGE_T0)))"
  return 0
}

die() {
  echo "error: $*" >&2
  exit 1
}

# A refused command line: the reason and the script's usage, exit 2.
usage_error() {
  echo "error: $1" >&2
  echo "usage: $2" >&2
  exit 2
}

# Under `set -e` a failing command ends the script; this says which one, so no command stops silently.
# Only the top level reports: a command substitution or subshell that fails is reported by the line using it.
set -E
trap 'rc=$?; [ "$BASH_SUBSHELL" -gt 0 ] || echo "error: $(basename "$0") stopped: \"$BASH_COMMAND\" exited with $rc (line $LINENO)" >&2' ERR

# pick_image ARG DIR — sets IMAGE to the image a check runs on: ARG when given (an existing .img or .img.xz),
# else the newest vigil-*-arm64.img.xz or vigil-*-arm64.img in DIR (./build.sh image makes the .img.xz,
# --raw the .img); stops with the reason when there is none.
# A check's arguments when it takes no option but --help: at most one image, left in IMAGE_ARG.
parse_image_args() {
  local usage=$1
  shift
  IMAGE_ARG=""
  while [ $# -gt 0 ]; do
    case "$1" in
      -h | --help) echo "usage: $usage"; exit 0 ;;
      -*) usage_error "unknown option '$1'" "$usage" ;;
      *) [ -z "$IMAGE_ARG" ] || usage_error "one image at a time (got '$IMAGE_ARG' and '$1')" "$usage"; IMAGE_ARG=$1 ;;
    esac
    shift
  done
}

pick_image() {
  IMAGE=$1
  if [ -n "$IMAGE" ]; then
    case "$IMAGE" in *.img | *.img.xz) ;; *) die "$IMAGE is not an image (.img or .img.xz)" ;; esac
    [ -f "$IMAGE" ] || die "no such image: $IMAGE"
    return 0
  fi
  local f
  for f in "$2"/vigil-*-arm64.img "$2"/vigil-*-arm64.img.xz; do
    [ -f "$f" ] || continue # an unmatched pattern stays literal
    if [ -z "$IMAGE" ] || [ "$f" -nt "$IMAGE" ]; then IMAGE=$f; fi
  done
  [ -n "$IMAGE" ] || die "no image to check: run ./build.sh image first (looked for vigil-*-arm64.img.xz and .img in $2)"
}

# bundle_is_current BUNDLE IMAGE: the bundle exists, is not empty and was built after the image. A check
# rebuilds any other: a bundle from an older tree installs another root than the one under test, and an
# adaptive fetch would count the blocks of two trees, not of one change.
bundle_is_current() {
  [ -s "$1" ] && [ "$1" -nt "$2" ]
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "$1 must run as root (mmdebstrap, loop-free genimage and chroot need it): sudo ./build.sh $1"
}

# require_tools "cmd:package" ...  — all missing tools are reported at once.
require_tools() {
  local missing=() entry cmd pkg
  for entry in "$@"; do
    cmd=${entry%%:*}
    pkg=${entry#*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || [ -x "/sbin/$cmd" ] || missing+=("$cmd (Debian package: $pkg)")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "error: missing tools:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    echo "install them with: apt-get install --no-install-recommends $(for entry in "$@"; do cmd=${entry%%:*}; command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || [ -x "/sbin/$cmd" ] || printf '%s ' "${entry#*:}"; done)" >&2
    exit 1
  fi
}

# qemu-user via binfmt_misc runs the arm64 chroot's maintainer scripts and the smoke test.
require_binfmt_aarch64() {
  if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
    mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || true
  fi
  if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  fi
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
    die "arm64 binaries cannot run here: binfmt_misc has no qemu-aarch64 entry (install qemu-user-static and binfmt-support, then: update-binfmts --enable qemu-aarch64)"
}

# signing_keys DIR — sets SIGNING_CERT, SIGNING_KEY (bundles are signed with them) and KEYRING (the CA the
# image carries in /etc/rauc/keyring.pem). An operator's own: VIGIL_SIGNING_CERT, VIGIL_SIGNING_KEY and
# VIGIL_KEYRING. Otherwise a development CA and signer made in DIR on first use (build/keys/, ignored by
# git): the CA with CA:TRUE, the signer with CA:FALSE and keyUsage=digitalSignature only (RAUC refuses a
# signer whose extendedKeyUsage is codeSigning unless told to check that purpose).
signing_keys() {
  local dir=$1
  if [ -n "${VIGIL_SIGNING_CERT:-}${VIGIL_SIGNING_KEY:-}${VIGIL_KEYRING:-}" ]; then
    [ -n "${VIGIL_SIGNING_CERT:-}" ] && [ -n "${VIGIL_SIGNING_KEY:-}" ] && [ -n "${VIGIL_KEYRING:-}" ] ||
      die "set all three of VIGIL_SIGNING_CERT, VIGIL_SIGNING_KEY and VIGIL_KEYRING, or none (docs/image.md \"Signing keys\")"
    local f
    for f in "$VIGIL_SIGNING_CERT" "$VIGIL_SIGNING_KEY" "$VIGIL_KEYRING"; do [ -r "$f" ] || die "cannot read $f"; done
    SIGNING_CERT=$VIGIL_SIGNING_CERT SIGNING_KEY=$VIGIL_SIGNING_KEY KEYRING=$VIGIL_KEYRING
    openssl verify -CAfile "$KEYRING" "$SIGNING_CERT" >/dev/null ||
      die "$SIGNING_CERT is not signed by the keyring $KEYRING: the image would refuse every bundle it signs"
    return 0
  fi
  SIGNING_CERT=$dir/signer.pem SIGNING_KEY=$dir/signer.key KEYRING=$dir/ca.pem
  [ -s "$SIGNING_CERT" ] && [ -s "$SIGNING_KEY" ] && [ -s "$KEYRING" ] && return 0
  echo "making a development signing CA and signer in $dir (never commit them; docs/image.md \"Signing keys\")"
  mkdir -p "$dir" && chmod 0700 "$dir"
  openssl req -x509 -newkey rsa:3072 -nodes -days 3650 -subj "/O=Vigil development/CN=Vigil development CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$dir/ca.key" -out "$dir/ca.pem.partial" 2>/dev/null
  openssl req -newkey rsa:3072 -nodes -subj "/O=Vigil development/CN=Vigil development signer" \
    -keyout "$dir/signer.key.partial" -out "$dir/signer.csr" 2>/dev/null
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n' > "$dir/signer.ext"
  openssl x509 -req -in "$dir/signer.csr" -CA "$dir/ca.pem.partial" -CAkey "$dir/ca.key" -CAcreateserial \
    -days 3650 -extfile "$dir/signer.ext" -out "$dir/signer.pem.partial" 2>/dev/null
  mv "$dir/signer.key.partial" "$dir/signer.key" && mv "$dir/signer.pem.partial" "$dir/signer.pem" &&
    mv "$dir/ca.pem.partial" "$dir/ca.pem"
  rm -f "$dir/signer.csr" "$dir/signer.ext"
}
