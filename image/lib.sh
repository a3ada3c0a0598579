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
