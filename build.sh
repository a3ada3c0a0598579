#!/usr/bin/env bash
# ./build.sh              compiles the TypeScript sources to dist/ (production runs compiled JS; nothing is
#                         transpiled on the Pi).
# ./build.sh image        builds the arm64 SD image into build/ (as root; docs/image.md).
# ./build.sh image-check  boots that image in qemu and proves it works (as root; docs/image.md).
# ./build.sh bundle       builds the signed RAUC update bundle of the same tree (as root; docs/image.md).
# ./build.sh update-check proves A/B updates, rollback and power cuts in qemu (as root; docs/image.md).
# ./build.sh channel      writes and signs an update channel manifest (docs/updates.md "Publishing a release").
# ./build.sh channel-check proves the update channel in qemu: streamed, adaptive installs (as root; docs/image.md).
set -euo pipefail
cd "$(dirname "$0")"
case "${1:-}" in
  image) shift; exec bash image/build-image.sh "$@" ;;
  image-check) shift; exec bash image/image-check.sh "$@" ;;
  bundle) shift; exec bash image/build-image.sh --bundle "$@" ;;
  update-check) shift; exec bash image/update-check.sh "$@" ;;
  channel) shift; exec bash image/channel-manifest.sh "$@" ;;
  channel-check) shift; exec bash image/channel-check.sh "$@" ;;
  '') ;;
  *) echo "usage: ./build.sh [image [--fresh] [--raw] | image-check [--soak MINUTES] [IMAGE.img.xz|IMAGE.img] | bundle [--version X.Y.Z] [--test-migration] [--test-unhealthy] | update-check | channel --version X.Y.Z --bundle URL [--wave P[@TIME]]... | channel-check]" >&2; exit 2 ;;
esac
rm -rf dist
npx --no-install tsc -p tsconfig.json
chmod +x dist/src/cli.js
# The checkout's `vigil` command: `npx vigil …` finds this link and runs the compiled CLI at once. (A `bin`
# entry in package.json would make npx install the checkout into its cache and run `prepare` — this
# script — on first use, rebuilding dist/ under whatever else runs from it.)
mkdir -p node_modules/.bin
ln -sfn ../../dist/src/cli.js node_modules/.bin/vigil
# The test runner refuses to run when a source is newer than this stamp (test/run.ts).
touch dist/.built
# The technician's page serves its stylesheet and script as files (no inline code under its CSP).
mkdir -p dist/src/web/assets
cp src/web/assets/*.css src/web/assets/*.js dist/src/web/assets/
