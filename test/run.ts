/**
 * Runs every compiled test file in its own process (isolation: sockets, timers and SQLite
 * handles of one file cannot leak into another), two at a time, each bounded in time, and
 * ends with the line `N passed, N failed` that CI reads.
 *
 *   node dist/test/run.js [filter]
 */
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE_TIMEOUT_MS = Number(process.env.VIGIL_TEST_TIMEOUT_MS ?? 240_000);
/** test/helpers/spawn-guard.ts, compiled: programs a test starts come from test/system-tools.txt. */
const SPAWN_GUARD = new URL('./helpers/spawn-guard.js', import.meta.url).href;
const CONCURRENCY = Math.max(1, Number(process.env.VIGIL_TEST_JOBS ?? 2));

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  output: string;
  ms: number;
}

function findTests(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (name.endsWith('.test.js')) found.push(path);
  }
  return found.sort();
}

function stripAnsi(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function count(text: string, label: string): number | undefined {
  let last: number | undefined;
  for (const match of text.matchAll(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'gm'))) last = Number(match[1]);
  return last;
}

function runFile(file: string, root: string): Promise<FileResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], {
      // Every Node process of the test, and those it starts, refuses to start an unlisted system program.
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', NODE_OPTIONS: `--import=${SPAWN_GUARD}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      output += `\n[run] ${relative(root, file)} exceeded ${FILE_TIMEOUT_MS} ms and was killed\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = stripAnsi(output);
      const total = count(text, 'Total') ?? 0;
      const passed = count(text, 'Passed') ?? 0;
      const skipped = count(text, 'Skipped') ?? 0;
      let failed = Math.max(0, total - passed - skipped);
      // A file that crashed or was killed counts as a failure even if its totals looked clean.
      if ((code !== 0 || signal) && failed === 0) failed = 1;
      resolve({ file: relative(root, file), passed, failed, skipped, output: text, ms: Date.now() - started });
    });
  });
}

/** Newest modification time of the TypeScript sources under `dir` (0 when there are none). */
function newestSource(dir: string): number {
  let newest = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dir, name);
    const info = statSync(path);
    if (info.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (name.endsWith('.ts')) newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

/**
 * build.sh stamps dist/.built after compiling; a source newer than the stamp means these tests
 * would run stale code (a fix that seems to work, or a failure already fixed). Refuse instead.
 */
function staleBuild(distDir: string): string | null {
  const root = dirname(distDir);
  let built: number;
  try {
    built = statSync(join(distDir, '.built')).mtimeMs;
  } catch {
    return 'dist/ has no build stamp (dist/.built)';
  }
  const newest = Math.max(...['src', 'test', 'bench'].map((d) => newestSource(join(root, d))));
  return newest > built ? 'a source file is newer than dist/' : null;
}

async function main(): Promise<void> {
  const here = dirname(fileURLToPath(import.meta.url));
  const stale = staleBuild(dirname(here));
  if (stale) {
    process.stdout.write(`[run] ${stale}: run \`npm run build\` first (npm test does)\n\n0 passed, 1 failed\n`);
    process.exitCode = 1;
    return;
  }
  const filter = process.argv[2];
  const files = findTests(here).filter((f) => !filter || relative(here, f).includes(filter));
  const queue = [...files];
  const results: FileResult[] = [];
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runFile(file, here);
      results.push(result);
      const verdict = result.failed > 0 ? 'FAIL' : 'ok  ';
      process.stdout.write(
        `${verdict} ${result.file} (${result.passed} passed, ${result.failed} failed, ${result.ms} ms)\n`,
      );
      if (result.failed > 0 || process.env.VIGIL_TEST_VERBOSE) process.stdout.write(result.output + '\n');
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  const skipped = results.reduce((n, r) => n + r.skipped, 0);
  if (files.length === 0) process.stdout.write('[run] no test files found\n');
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
}

void main();
