/**
 * The checkout's `vigil` command as README names it, `npx vigil <command>`: it runs the compiled CLI
 * through the link build.sh makes (node_modules/.bin/vigil), installs nothing into npm's cache and never
 * rebuilds dist/, also on first use and when two start at once (a `bin` entry in package.json made npx
 * install the checkout and run `prepare`, a full build, under everything else running from dist/).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tool } from './helpers/system-tools.js';
import { tempDir } from './helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function npxVigil(args: string[], cache: string): Promise<{ code: number | null; stdout: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(tool('npx'), ['vigil', ...args], {
      cwd: REPO,
      env: { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: Date.now() - started });
    });
  });
}

test('package.json names no bin, and the build links node_modules/.bin/vigil to the compiled CLI', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin?: unknown; version: string };
  assert.is(pkg.bin, undefined);
  assert.is(readlinkSync(join(REPO, 'node_modules', '.bin', 'vigil')), '../../dist/src/cli.js');
});

test('two first uses at once answer with the version, install nothing and leave dist/ as it was', async () => {
  const cache = tempDir('vigil-npx-cache-');
  try {
    const built = statSync(join(REPO, 'dist', '.built')).mtimeMs;
    const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
    const runs = await Promise.all([npxVigil(['version'], cache.path), npxVigil(['version'], cache.path)]);
    process.stdout.write(
      `npx vigil version, two at once, empty npm cache: ${runs.map((r) => `${r.ms} ms`).join(', ')}\n`,
    );
    for (const run of runs) assert.equal([run.code, run.stdout], [0, `${version}\n`]);
    assert.not.ok(existsSync(join(cache.path, '_npx')), 'npx installed the checkout into its cache');
    assert.is(statSync(join(REPO, 'dist', '.built')).mtimeMs, built, 'dist/ was rebuilt');
    // Generous: the figure (about 1 s on a loaded 2-core machine) is printed above; a build takes 30 s.
    for (const run of runs) assert.ok(run.ms < 15_000, `${run.ms} ms`);
  } finally {
    cache.remove();
  }
});

test.run();
