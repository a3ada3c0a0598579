#!/usr/bin/env bash
# Compiles the TypeScript sources to dist/ (production runs compiled JS; nothing is transpiled on the Pi).
set -euo pipefail
cd "$(dirname "$0")"
rm -rf dist
npx --no-install tsc -p tsconfig.json
chmod +x dist/src/cli.js
# The technician's page serves its stylesheet and script as files (no inline code under its CSP).
mkdir -p dist/src/web/assets
cp src/web/assets/*.css src/web/assets/*.js dist/src/web/assets/
