/**
 * How the rest of the process sees the store's repositories (docs/store.md §One writer): reads are
 * synchronous calls on the caller's own connection (`store.meta.get(k)`), writes are explicit and
 * asynchronous (`await store.write.meta.set(k, v)`), each a command to the one writer. The two
 * views are derived from WRITE_METHODS, so a repository method is either a read (ReadRepo keeps it)
 * or a write (WriteView turns it into a Promise), never both, and `npm run lint` (typescript-eslint's
 * no-floating-promises, eslint.config.js) refuses any call site that writes without awaiting or
 * handling the result.
 */
import type { Clock } from '../core/clock.js';
import type { Repos } from './repos.js';
import {
  WRITE_METHODS,
  type MethodFn,
  type MethodOf,
  type RepoName,
  type WriteCommand,
  type WriteSend,
} from './write-commands.js';

/** Writes that only the journal's group commit makes, inside its own transaction (src/ingest BatchWriter). */
type BatchWrites = { readonly events: 'appendRows'; readonly objects: 'addQuirks' };
type BatchWriteOf<R extends RepoName> = R extends keyof BatchWrites ? BatchWrites[R] : never;

/** A repository without its writes: what `store.settings`, `store.objects`… are. */
export type ReadRepo<R extends RepoName> = Omit<Repos[R], MethodOf<R> | BatchWriteOf<R>>;

/** A repository's writes, each resolving with the method's result once the writer has committed it. */
export type RepoWrites<R extends RepoName> = {
  readonly [M in MethodOf<R>]: (...args: Parameters<MethodFn<R, M>>) => Promise<ReturnType<MethodFn<R, M>>>;
};

/** Every repository's writes: `store.write.settings.save(document)`. */
export type WriteView = { readonly [R in RepoName]: RepoWrites<R> };

/** `clock` stamps each command (`at`): the writer's repositories take their time from it. */
export function writeView(send: WriteSend, clock: Clock): WriteView {
  const view: Record<string, Record<string, unknown>> = {};
  for (const [repo, methods] of Object.entries(WRITE_METHODS)) {
    const writes: Record<string, unknown> = {};
    for (const method of methods) {
      writes[method] = (...args: unknown[]) => send({ repo, method, args, at: clock.now() } as unknown as WriteCommand);
    }
    view[repo] = writes;
  }
  return view as unknown as WriteView;
}
