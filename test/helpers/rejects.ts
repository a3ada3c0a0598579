/**
 * assert.throws for a write that is a promise (every store write is a command to the one writer,
 * docs/store.md §One writer): passes when `promise` rejects and the error meets `expects` (a
 * predicate, or a RegExp tried on its message); fails when it resolves.
 */
import * as assert from 'uvu/assert';

export async function rejects(
  promise: Promise<unknown>,
  expects?: RegExp | ((err: unknown) => boolean) | string,
  message?: string,
): Promise<void> {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err ?? new Error('rejected with nothing');
  }
  const text = typeof expects === 'string' ? expects : message;
  if (error === undefined) assert.unreachable(text ?? 'expected the promise to reject');
  if (expects instanceof RegExp) assert.match(String((error as Error).message ?? error), expects, text);
  else if (typeof expects === 'function') assert.ok(expects(error), text ?? `unexpected error: ${String(error)}`);
}
