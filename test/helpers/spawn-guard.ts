/**
 * Loaded into every test process by test/run.ts (`node --import`): a system program that any code under
 * test starts — the tests, the gateway, the image tools they import, playwright — must be one of
 * test/system-tools.txt, else the start throws instead of working only where a developer happened to
 * have it installed. Node itself and scripts outside the system's program directories (the repo's own,
 * a test's stand-in `rauc` or `qemu-system-aarch64`) are the project's code and pass.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { systemTools } from './system-tools.js';

const SYSTEM_DIRS = new Set(['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin']);

const listed = new Set(systemTools().map((t) => t.program));

/** Where a bare program name resolves on PATH (as spawn looks it up), or null. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {}
  }
  return null;
}

/** Why starting `file` is refused, or null when it may start. */
export function unlistedProgram(file: unknown): string | null {
  if (typeof file !== 'string' || file === process.execPath) return null;
  // A script of the project's own (the repo's, or a test's stand-in put first on PATH) is not a system program.
  const resolved = file.includes('/') ? file : onPath(file);
  if (resolved && !SYSTEM_DIRS.has(dirname(resolved))) return null;
  const program = basename(file);
  if (listed.has(program)) return null;
  return `${program} is started but is not in test/system-tools.txt: add it with its Debian package (.ci/run installs it)`;
}

type Start = (this: unknown, file: unknown, ...rest: unknown[]) => unknown;

/** `start` behind the check; its promisified form too (execFile's gives `{ stdout, stderr }`). */
function guarded(start: Start): Start {
  const checked: Start = function (this: unknown, file, ...rest) {
    const refused = unlistedProgram(file);
    if (refused) throw new Error(refused);
    return start.call(this, file, ...rest);
  };
  const custom = (start as unknown as Record<symbol, Start | undefined>)[promisify.custom];
  if (custom) Object.defineProperty(checked, promisify.custom, { value: guarded(custom) });
  return checked;
}

const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, Start>;
for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync'])
  childProcess[name] = guarded(childProcess[name]!);
// ESM importers (`import { spawn } from 'node:child_process'`) see the guarded functions too.
syncBuiltinESMExports();
