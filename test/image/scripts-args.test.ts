/**
 * The image checks' command lines and default image (image/lib.sh pick_image, image-check.sh,
 * update-check.sh): README's order — `./build.sh image` makes only the .img.xz, then the checks run with no
 * argument — finds that image; a raw .img from `--raw` is found too, the newer of the two wins; every
 * refusal says why, and a command that fails under `set -e` names itself instead of ending silently.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tool } from '../helpers/system-tools.js';
import { tempDir } from '../helpers/temp-dir.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const LIB = join(REPO, 'image', 'lib.sh');

function bash(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const run = spawnSync(tool('bash'), ['-c', script, 'bash', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** pick_image as the checks call it; prints IMAGE on success. */
function pick(arg: string, dir: string) {
  return bash(`set -euo pipefail; . "${LIB}"; pick_image "$1" "$2"; echo "$IMAGE"`, [arg, dir]);
}

function image(dir: string, name: string, ageSeconds: number): string {
  const path = join(dir, name);
  writeFileSync(path, 'not really an image');
  const at = Date.now() / 1000 - ageSeconds;
  utimesSync(path, at, at);
  return path;
}

test("README's order: only the .img.xz that ./build.sh image made is there, and it is the default", () => {
  const dir = tempDir('vigil-pick-');
  try {
    const xz = image(dir.path, 'vigil-0.1.0-arm64.img.xz', 10);
    image(dir.path, 'vigil-0.1.0-arm64.img.xz.sha256', 10);
    image(dir.path, 'vigil-0.1.1-arm64-test-migration.raucb', 0);
    assert.equal(pick('', dir.path), { status: 0, stdout: `${xz}\n`, stderr: '' });
  } finally {
    dir.remove();
  }
});

test('a raw .img alone is found; beside an .img.xz the newer of the two wins', () => {
  const dir = tempDir('vigil-pick-');
  try {
    const raw = image(dir.path, 'vigil-0.1.0-arm64.img', 100);
    assert.is(pick('', dir.path).stdout, `${raw}\n`);
    const xz = image(dir.path, 'vigil-0.1.0-arm64.img.xz', 50);
    assert.is(pick('', dir.path).stdout, `${xz}\n`);
    utimesSync(raw, Date.now() / 1000, Date.now() / 1000);
    assert.is(pick('', dir.path).stdout, `${raw}\n`);
  } finally {
    dir.remove();
  }
});

test('no image, a missing one or a file that is not an image: each stops with its reason', () => {
  const dir = tempDir('vigil-pick-');
  try {
    const none = pick('', dir.path);
    assert.is(none.status, 1);
    assert.is(
      none.stderr,
      `error: no image to check: run ./build.sh image first (looked for vigil-*-arm64.img.xz and .img in ${dir.path})\n`,
    );
    assert.equal(
      pick(join(dir.path, 'gone.img.xz'), dir.path).stderr,
      `error: no such image: ${dir.path}/gone.img.xz\n`,
    );
    const bundle = image(dir.path, 'vigil-0.1.0-arm64.raucb', 0);
    assert.equal(pick(bundle, dir.path).stderr, `error: ${bundle} is not an image (.img or .img.xz)\n`);
  } finally {
    dir.remove();
  }
});

test('a command that fails under set -e names itself, its exit code and its line', () => {
  const r = bash(`set -euo pipefail; . "${LIB}"\nfalse_in_a_script() { return 3; }\nfalse_in_a_script`);
  assert.is(r.status, 3);
  assert.match(r.stderr, /^error: bash stopped: "return 3" exited with 3 \(line \d+\)\n$/);
  // A failure inside a command substitution is reported once, by the line that uses it.
  const sub = bash(`set -euo pipefail; . "${LIB}"\nx=$(ls /vigil-no-such-dir 2>/dev/null)`);
  assert.is(sub.status, 2);
  assert.equal(sub.stderr.match(/stopped/g)?.length, 1, sub.stderr);
});

for (const script of ['image-check.sh', 'update-check.sh']) {
  const usage =
    script === 'image-check.sh'
      ? 'usage: ./build.sh image-check [--soak MINUTES] [IMAGE.img.xz|IMAGE.img]'
      : 'usage: ./build.sh update-check [IMAGE.img.xz|IMAGE.img]';
  const run = (...args: string[]) =>
    spawnSync(tool('bash'), [join(REPO, 'image', script), ...args], { encoding: 'utf8', timeout: 30_000 });

  test(`${script}: --help prints the usage; an unknown option or two images are refused with it (exit 2)`, () => {
    assert.equal([run('--help').status, run('--help').stdout], [0, `${usage}\n`]);
    const unknown = run('--fast');
    assert.equal([unknown.status, unknown.stderr], [2, `error: unknown option '--fast'\n${usage}\n`]);
    const two = run('a.img', 'b.img.xz');
    assert.equal([two.status, two.stderr], [2, `error: one image at a time (got 'a.img' and 'b.img.xz')\n${usage}\n`]);
  });

  test(`${script}: with nothing built it stops at once and says what to run`, () => {
    const out = tempDir('vigil-empty-out-');
    try {
      mkdirSync(join(out.path, 'build'));
      const r = spawnSync(tool('bash'), [join(REPO, 'image', script)], {
        encoding: 'utf8',
        env: { ...process.env, VIGIL_IMAGE_OUT: join(out.path, 'build') },
        timeout: 30_000,
      });
      assert.is(r.status, 1);
      const reason =
        process.getuid?.() === 0
          ? `error: no image to check: run ./build.sh image first (looked for vigil-*-arm64.img.xz and .img in ${out.path}/build)\n`
          : `error: ${script.replace('.sh', '')} must run as root`;
      assert.ok(r.stderr.startsWith(reason), r.stderr);
    } finally {
      out.remove();
    }
  });
}

test('image-check.sh: --soak takes whole minutes', () => {
  const r = spawnSync(tool('bash'), [join(REPO, 'image', 'image-check.sh'), '--soak', 'x'], { encoding: 'utf8' });
  assert.equal(
    [r.status, r.stderr],
    [
      2,
      "error: --soak takes whole minutes (1..1440), got 'x'\nusage: ./build.sh image-check [--soak MINUTES] [IMAGE.img.xz|IMAGE.img]\n",
    ],
  );
});

test.run();
