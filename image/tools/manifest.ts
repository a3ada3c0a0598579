/**
 * node dist/image/tools/manifest.js --root DIR --app DIR --name NAME --sources "deb ...;deb ..." [--commit SHA]
 * The image manifest (docs/image.md): every Debian package and npm package in the image with its exact
 * version, shipped inside the image (/usr/share/vigil/manifest.txt) and beside it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { dpkgPackages, npmPackages, renderManifest } from './manifest-data.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    app: { type: 'string' },
    name: { type: 'string' },
    sources: { type: 'string' },
    commit: { type: 'string' },
  },
  strict: true,
});
if (!values.root || !values.app || !values.name) {
  process.stderr.write('manifest: --root, --app and --name are required\n');
  process.exit(2);
}
process.stdout.write(
  renderManifest({
    name: values.name,
    builtAt: new Date(),
    commit: values.commit ?? null,
    sources: (values.sources ?? '').split(';').filter((s) => s.length > 0),
    debian: dpkgPackages(readFileSync(join(values.root, 'var/lib/dpkg/status'), 'utf8')),
    npm: npmPackages(JSON.parse(readFileSync(join(values.app, 'package-lock.json'), 'utf8')) as unknown),
  }),
);
