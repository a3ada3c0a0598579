/**
 * A bound on how deeply a settings update may nest. The deepest real field is five levels down
 * (`users[0].visible_receivers.custom[0]`); a body nested thousands of levels deep (which fits in
 * the 64 KiB body limit) would overflow the stack of every recursive step after it (structuredClone,
 * the schema), so it is refused first, by an iterative walk, as a client error with its path.
 */
import { line, type PathPart } from './issues.js';

/** Twice the deepest real field: room for every legitimate update, far below any stack limit. */
export const MAX_SETTINGS_DEPTH = 10;

/** The validation line for the first value nested deeper than `maxDepth`, or null. */
export function nestingProblem(body: unknown, maxDepth = MAX_SETTINGS_DEPTH): string | null {
  const stack: { value: unknown; path: PathPart[] }[] = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (path.length > maxDepth) return line(path, `nested more than ${maxDepth} levels deep`);
    const entries: [PathPart, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    for (const [key, child] of entries) stack.push({ value: child, path: [...path, key] });
  }
  return null;
}
