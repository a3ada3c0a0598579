#!/usr/bin/env bash
# Compiles the TypeScript sources to dist/ (production runs compiled JS; nothing is transpiled on the Pi).
set -euo pipefail
cd "$(dirname "$0")"
rm -rf dist
npx --no-install tsc -p tsconfig.json
chmod +x dist/src/cli.js
