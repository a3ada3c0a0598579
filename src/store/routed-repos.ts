/**
 * Repositories whose writes go to the writer (docs/store.md §One writer): reads run on this
 * thread's own connection, every method named in WRITE_METHODS becomes a write command. Callers
 * keep their types and call sites (`store.objects.updateSupervision(...)`).
 */
import type { Clock } from '../core/clock.js';
import type { Repos } from './repos.js';
import { WRITE_METHODS, type WriteCall, type WriteCommand } from '../writer/write-commands.js';

/** `clock` stamps each command (`at`): the writer's repositories take their time from it. */
export function routeWrites<R extends Partial<Repos>>(repos: R, call: WriteCall, clock: Clock): R {
  const routed: Record<string, unknown> = {};
  for (const [name, repo] of Object.entries(repos) as Array<[keyof Repos, object]>) {
    // The repository's reads stay as they are (prototype); its writes are shadowed.
    const view = Object.create(repo) as Record<string, unknown>;
    for (const method of WRITE_METHODS[name]) {
      view[method] = (...args: unknown[]) =>
        call({ repo: name, method, args, at: clock.now() } as unknown as WriteCommand);
    }
    routed[name] = view;
  }
  return routed as R;
}
