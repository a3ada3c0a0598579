/**
 * docs/ describe the present (house style): no issue numbers, no commit hashes, no dated entries of a
 * run log or a decision. History is git's: the commit messages say what changed when, and why.
 * Third-party trackers are cited by their project's name (`pysiaalarm #52`), which this allows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const HISTORY: Readonly<Record<string, RegExp>> = {
  'issue number': /#\d+\.\d+|\bissues? #?\d+|\(#\d+\)/gi,
  'commit hash': /(?<![\w./-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,12}(?![\w./-])/g,
  'dated entry':
    /\((?:decision|performance)[^)]*20\d\d-\d\d-\d\d|\b(?:until|since|on|measured|recorded|as of) 20\d\d-\d\d-\d\d/gi,
};

/** Docs whose rewrite is under way on another branch; each must still need it (else drop it here). */
const PENDING = new Set<string>();

function findings(text: string): string[] {
  const out: string[] = [];
  for (const [what, pattern] of Object.entries(HISTORY)) {
    for (const m of text.matchAll(pattern)) {
      const line = text.slice(0, m.index).split('\n').length;
      out.push(`${line}: ${what} ${JSON.stringify(m[0])}`);
    }
  }
  return out;
}

test('the patterns find issue numbers, hashes and dated entries, not examples or third-party trackers', () => {
  assert.equal(findings('decided in #28.6; (#9); issue 29; see pysiaalarm #52'), [
    '1: issue number "#28.6"',
    '1: issue number "(#9)"',
    '1: issue number "issue 29"',
  ]);
  assert.equal(findings('built from 3c7e778; key 8d969eef6ecad3c29a3a629280e686cf; ssh-ed25519 AAAA'), [
    '1: commit hash "3c7e778"',
  ]);
  assert.equal(findings('(decision, 2026-11-24); Measured 2026-11-23; "received_at":"2026-11-26T15:00:00Z"'), [
    '1: dated entry "(decision, 2026-11-24"',
    '1: dated entry "Measured 2026-11-23"',
  ]);
});

test('no doc carries history: issue numbers, commit hashes, dated entries', () => {
  const found: string[] = [];
  const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
  for (const name of docs) {
    const lines = findings(readFileSync(join(root, 'docs', name), 'utf8'));
    if (PENDING.has(name)) {
      assert.ok(lines.length > 0, `docs/${name} is clean now: remove it from PENDING`);
      continue;
    }
    found.push(...lines.map((l) => `docs/${name}:${l}`));
  }
  assert.equal(found, []);
});

test.run();
