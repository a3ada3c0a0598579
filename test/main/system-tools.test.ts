/**
 * The programs the tests and benches start are listed once (test/system-tools.txt, each with its Debian
 * package), every start goes through that list (`tool()`, test/helpers/system-tools.ts), and `.ci/run`
 * installs exactly the list's packages: a new program cannot ride in on a developer's machine and fail
 * on a fresh one.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unlistedProgram } from '../helpers/spawn-guard.js';
import { systemTools, tool } from '../helpers/system-tools.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** The names a file imports from node:child_process (spawn, execFileSync, ...), as it calls them. */
function childProcessNames(text: string): string[] {
  const names: string[] = [];
  for (const [, list] of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'node:child_process'/g))
    for (const part of list!.split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name && !name.startsWith('type ')) names.push(alias ?? name);
    }
  return names;
}

interface Start {
  readonly file: string;
  readonly line: number;
  readonly call: string;
  /** The first argument's text, up to its comma. */
  readonly program: string;
}

/** The text of the argument that starts at `from`, up to the comma or parenthesis that ends it. */
function firstArgument(text: string, from: number): string {
  let depth = 0;
  for (let i = from; i < text.length; i += 1) {
    const c = text[i]!;
    if ('([{'.includes(c)) depth += 1;
    else if (')]}'.includes(c)) {
      if (depth === 0) return text.slice(from, i).trim();
      depth -= 1;
    } else if (c === ',' && depth === 0) return text.slice(from, i).trim();
  }
  return text.slice(from).trim();
}

/** Every call of a child_process function, and every browser launch, in `files`. */
function starts(files: string[]): Start[] {
  const found: Start[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const names = childProcessNames(text).filter((n) =>
      /^(spawn|spawnSync|exec|execSync|execFile|execFileSync)$/.test(n),
    );
    const calls = names.length ? new RegExp(`(?<![.\\w])(${names.join('|')})\\(\\s*`, 'g') : null;
    const record = (index: number, call: string, after: number) => {
      found.push({
        file: relative(REPO, file),
        line: text.slice(0, index).split('\n').length,
        call,
        program: firstArgument(text, after),
      });
    };
    if (calls) for (const m of text.matchAll(calls)) record(m.index!, m[1]!, m.index! + m[0].length);
    for (const m of text.matchAll(/executablePath:\s*/g)) record(m.index!, 'executablePath', m.index! + m[0].length);
  }
  return found;
}

/**
 * A program named through the list — `tool('socat')`, or `tool(program)` in a helper whose callers pass
 * the name (tool() refuses an unlisted one when it runs) — or Node itself (test files, the CLI, workers).
 */
function throughTheList(program: string): boolean {
  // A script a test writes out names the path as a literal: `${JSON.stringify(tool('rauc'))}`.
  const named = program.replace(/^\$\{JSON\.stringify\((.*)\)\}$/, '$1');
  return /^tool\(('[\w./+-]+'|\w+)\)$/.test(named) || named === 'process.execPath';
}

test('the list is one "program package" line per program, each program once', () => {
  const tools = systemTools();
  assert.ok(tools.length >= 20, `${tools.length} programs`);
  const programs = tools.map((t) => t.program);
  assert.equal(
    programs.filter((p, i) => programs.indexOf(p) !== i),
    [],
    'programs listed twice',
  );
  assert.throws(() => systemTools('socat\n'), /is not "program package"/);
});

test('every program a test or bench starts goes through tool(), and tool() knows it', () => {
  // This file starts an unlisted program on purpose (the guard's own test) and names the calls in regexes.
  const files = [...sources(join(REPO, 'test')), ...sources(join(REPO, 'bench'))].filter(
    (f) => !f.endsWith('system-tools.test.ts'),
  );
  const all = starts(files);
  assert.ok(all.length > 40, `found ${all.length} starts: the scan still sees the calls`);
  const bypassing = all
    .filter((s) => !throughTheList(s.program))
    .map((s) => `${s.file}:${s.line} ${s.call}(${s.program}`);
  assert.equal(bypassing, [], 'starts that name a program without tool()');
  const listed = new Set(systemTools().map((t) => t.program));
  const unknown = new Set<string>();
  for (const file of files)
    for (const [, program] of readFileSync(file, 'utf8').matchAll(/\btool\('([\w./+-]+)'\)/g))
      if (!listed.has(program!)) unknown.add(`${relative(REPO, file)}: ${program}`);
  assert.equal([...unknown], [], 'tool() names a program the list lacks');
});

test('every program the gateway itself starts by name is listed too (the tests run that code)', () => {
  const listed = new Set(systemTools().map((t) => t.program));
  const named = starts(sources(join(REPO, 'src')))
    .map((s) => /^'([\w.+-]+)'$/.exec(s.program)?.[1])
    .filter((p): p is string => p !== undefined);
  assert.ok(named.includes('ssh-keygen'), named.join(' '));
  assert.equal(
    named.filter((p) => !listed.has(p)),
    [],
  );
});

test('.ci/run installs exactly the packages of the list', () => {
  const run = spawnSync(tool('bash'), [join(REPO, '.ci', 'run'), '--print-packages'], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  const wanted = [...new Set(systemTools().map((t) => t.debianPackage))].sort();
  assert.equal(run.stdout.trim().split('\n'), wanted);
});

test('a program missing from the list, or from the machine, is named with what to do', () => {
  assert.throws(() => tool('vigil-no-such-program'), /vigil-no-such-program is not in test\/system-tools\.txt/);
  assert.throws(
    () => tool('vigil-no-such-program', new Map([['vigil-no-such-program', 'vigil-pkg']])),
    /vigil-no-such-program is not installed \(Debian package vigil-pkg; \.ci\/run installs it, as root\)/,
  );
  assert.ok(tool('bash').endsWith('/bash'));
});

test('under the test runner, starting an unlisted system program throws before anything runs', () => {
  assert.ok(process.env.NODE_OPTIONS?.includes('spawn-guard'), 'run through test/run.ts');
  assert.throws(
    () => spawnSync('/usr/bin/vigil-unlisted-program', []),
    /vigil-unlisted-program is started but is not in test\/system-tools\.txt/,
  );
  assert.is(unlistedProgram(process.execPath), null);
  assert.is(unlistedProgram(join(REPO, 'image', 'lib.sh')), null, "the project's own scripts");
  assert.is(unlistedProgram(tool('socat')), null);
  assert.match(unlistedProgram('cowsay') ?? '', /cowsay is started but is not in/);
});

test.run();
