/**
 * Validation messages: one line per violation, `<field path>: <what is wrong>`, e.g.
 * `receivers.tcp_receivers[1].port: must be between 1 and 65535`. Lines never contain submitted
 * values: valibot's own texts quote the input (secrets included), so they are never used.
 */
import type * as v from 'valibot';

export type PathPart = string | number;

/** `['receivers', 'tcp_receivers', 1, 'port']` -> `receivers.tcp_receivers[1].port`; `[]` -> `body`. */
export function formatPath(parts: readonly PathPart[]): string {
  if (parts.length === 0) return 'body';
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

export function line(path: readonly PathPart[] | string, message: string): string {
  return `${typeof path === 'string' ? path : formatPath(path)}: ${message}`;
}

/** A value-free fallback for any issue whose schema has no message of its own. */
export function fallbackMessage(issue: v.BaseIssue<unknown>): string {
  return issue.expected && !issue.expected.includes('"') ? `must be ${issue.expected}` : 'is invalid';
}

function issuePath(issue: v.BaseIssue<unknown>): PathPart[] {
  return (issue.path ?? []).map((item) => {
    const key = (item as { key?: unknown }).key;
    return typeof key === 'number' ? key : String(key);
  });
}

/** Turns valibot issues into lines. Unknown keys and missing keys get their fixed texts. */
export function issueLines(issues: readonly v.BaseIssue<unknown>[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = issuePath(issue);
    let message = issue.message;
    if (issue.type === 'strict_object' && path.length > 0) {
      if (issue.expected === 'never') message = 'unknown field';
      else if (issue.input === undefined) message = 'required';
    }
    if (path.length === 0 && issue.kind === 'schema') message = 'must be a JSON object';
    lines.push(line(path, message));
  }
  return lines;
}

/**
 * Stable order by path (indices compared as numbers, so [2] sorts before [10]); duplicates dropped.
 * Lines with the same path keep their original order.
 */
export function sortLines(lines: readonly string[]): string[] {
  const key = (l: string): string => {
    const path = l.slice(0, Math.max(0, l.indexOf(': ')));
    return path.replace(/\[(\d+)\]/g, (_m, n: string) => `[${n.padStart(10, '0')}]`);
  };
  const unique = [...new Set(lines)];
  return unique
    .map((l, i) => ({ l, i, k: key(l) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : a.i - b.i))
    .map((x) => x.l);
}

/** Reports every later occurrence of a key already seen: `<path>: <message> (also used by <first path>)`. */
export function duplicates<K>(entries: readonly { key: K; path: string; at: string }[], message: string): string[] {
  const first = new Map<K, string>();
  const out: string[] = [];
  for (const e of entries) {
    const seen = first.get(e.key);
    if (seen === undefined) first.set(e.key, e.path);
    else out.push(line(e.at, `${message} (also used by ${seen})`));
  }
  return out;
}

/** Each duplicate element of a plain list, e.g. a scope given twice. */
export function duplicateValues(values: readonly (string | number)[], path: string, what: string): string[] {
  return duplicates(
    values.map((value, i) => ({ key: value, path: `${path}[${i}]`, at: `${path}[${i}]` })),
    `duplicate ${what}`,
  );
}
