/**
 * The one way a test or bench names an external program: `tool('socat')`. Every program must be listed
 * in test/system-tools.txt with the Debian package that provides it; `.ci/run` installs exactly those
 * packages, and test/main/system-tools.test.ts fails on a spawn that does not go through here. So a
 * program cannot ride in on a developer's machine: on a machine without it, the test that needs it says
 * which package is missing instead of failing with `spawnSync sfdisk ENOENT`.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/system-tools.txt, beside the sources (the compiled helper runs from dist/test/helpers/). */
export const SYSTEM_TOOLS_FILE = fileURLToPath(new URL('../../../test/system-tools.txt', import.meta.url));

export interface SystemTool {
  /** A program name looked up on PATH, or an absolute path (a library a server loads). */
  readonly program: string;
  readonly debianPackage: string;
}

/** The list, in file order: `program package` per line, `#` comments. */
export function systemTools(text = readFileSync(SYSTEM_TOOLS_FILE, 'utf8')): SystemTool[] {
  const tools: SystemTool[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line) continue;
    const [program, debianPackage, extra] = line.split(/\s+/);
    if (!program || !debianPackage || extra !== undefined)
      throw new Error(`test/system-tools.txt: "${raw.trim()}" is not "program package"`);
    tools.push({ program, debianPackage });
  }
  return tools;
}

let listed: Map<string, string> | undefined;

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `program` is: itself when it is a path, else the first PATH entry (and the sbin dirs) holding it. */
function locate(program: string): string | null {
  if (program.startsWith('/')) {
    try {
      accessSync(program, constants.R_OK);
      return program;
    } catch {
      return null;
    }
  }
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin'];
  for (const dir of dirs) if (dir && executable(join(dir, program))) return join(dir, program);
  return null;
}

/**
 * The path of a listed program. Throws, naming the package, when it is not installed; throws when it
 * is not listed at all (add it to test/system-tools.txt with its Debian package). `list` replaces the
 * file's list (program → package) for the helper's own test.
 */
export function tool(program: string, list?: ReadonlyMap<string, string>): string {
  listed ??= new Map(systemTools().map((t) => [t.program, t.debianPackage]));
  const debianPackage = (list ?? listed).get(program);
  if (!debianPackage) throw new Error(`${program} is not in test/system-tools.txt: add it with its Debian package`);
  const path = locate(program);
  if (!path)
    throw new Error(`${program} is not installed (Debian package ${debianPackage}; .ci/run installs it, as root)`);
  return path;
}
