/**
 * The image commands' checks stage (image/lib.sh require_tools): every missing tool is named with its
 * Debian package at once, with the apt-get line that installs them; and README's package list is
 * exactly what the checks of `./build.sh image`, `bundle`, `image-check`, `update-check`, `channel` and
 * `channel-check` look for,
 * so a newcomer who installs README's list passes every checks stage.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tool } from '../helpers/system-tools.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPTS = ['build-image.sh', 'image-check.sh', 'update-check.sh', 'channel-manifest.sh', 'channel-check.sh'];
/** What the checkout itself needs before any of these (README's quick start): not in the image list. */
const CHECKOUT_PREREQUISITES = new Set(['nodejs', 'npm', 'coreutils']);

function requireTools(...entries: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(
    tool('bash'),
    ['-c', `. "${join(REPO, 'image', 'lib.sh')}"; require_tools "$@"`, 'bash', ...entries],
    {
      encoding: 'utf8',
    },
  );
  return { status: run.status, stderr: run.stderr };
}

test('missing tools are all named, each with its package, and one apt-get line installs them', () => {
  const r = requireTools('bash:bash', 'vigil-no-such-tool:vigil-pkg-a', 'vigil-other-missing:vigil-pkg-b');
  assert.is(r.status, 1);
  assert.equal(r.stderr.trim().split('\n'), [
    'error: missing tools:',
    '  vigil-no-such-tool (Debian package: vigil-pkg-a)',
    '  vigil-other-missing (Debian package: vigil-pkg-b)',
    'install them with: apt-get install --no-install-recommends vigil-pkg-a vigil-pkg-b',
  ]);
});

test('nothing missing: silent, and the stage goes on', () => {
  const r = requireTools('bash:bash', 'sh:dash');
  assert.equal([r.status, r.stderr], [0, '']);
});

/** The packages the scripts' checks name: `require_tools cmd:pkg …` entries and `(Debian package: pkg)`. */
function checkedPackages(): Set<string> {
  const out = new Set<string>();
  for (const script of SCRIPTS) {
    const text = readFileSync(join(REPO, 'image', script), 'utf8').replace(/\\\n/g, ' ');
    for (const line of text.split('\n')) {
      if (/^\s*(\[.*\]\s*\|\|\s*)?require_tools\s/.test(line))
        for (const [, pkg] of line.matchAll(/\s[\w.+-]+:([\w.+-]+)/g)) out.add(pkg!);
      for (const [, pkg] of line.matchAll(/\(Debian package: ([\w.+-]+)\)/g)) out.add(pkg!);
    }
  }
  for (const pkg of CHECKOUT_PREREQUISITES) out.delete(pkg);
  return out;
}

/** README "Building the SD image": the backquoted package lists of the paragraph after the commands. */
function readmePackages(): Set<string> {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Building the SD image'));
  const paragraph = section.slice(section.indexOf('They need root'), section.indexOf('npm ci` run once'));
  return new Set([...paragraph.matchAll(/`([^`]+)`/g)].flatMap(([, list]) => list!.split(/\s+/)));
}

test("README's package list is exactly what the checks stages look for", () => {
  const checked = [...checkedPackages()].sort();
  assert.ok(
    checked.includes('arch-test') && checked.includes('u-boot-qemu') && checked.includes('rauc'),
    checked.join(' '),
  );
  assert.equal([...readmePackages()].sort(), checked);
});

test.run();
