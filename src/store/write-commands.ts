/**
 * The typed write commands of the single writer (docs/store.md §One writer). Every write to the
 * SQLite file after Store.start() is one of these, executed by the one writer on its connection
 * (the writer thread, src/writer/, or a store's LocalWriter); callers send them through a WriteSend
 * and get a Promise, and read on their own connections.
 *
 * A command is a repository method that writes, named in WRITE_METHODS, with the method's own
 * argument and result types; plus two of the store itself (`probe`, `checkpoint`). `at` is the
 * caller's clock when it sent the command: repositories that stamp a time (updated_at, granted_at)
 * read it through the writer's CommandClock, so an injected clock keeps working. To add a write:
 * add the method to its repository and its name here; callers reach it as
 * `await store.write.meta.set(...)` (write-view.ts). Arguments and results cross threads by
 * structured clone: plain data only.
 */
import { VigilError, type ErrorCode } from '../core/errors.js';
import { probeWrite, walCheckpoint, type CheckpointMode, type CheckpointResult, type Database } from './database.js';
import type { Repos } from './repos.js';
import { storeError } from './sql.js';

export const WRITE_METHODS = {
  settings: ['save'],
  grants: ['set', 'clear'],
  objects: [
    'upsertMain',
    'upsertRelated',
    'markSeen',
    'setConnectionState',
    'updateSupervision',
    'deleteLostOlderThan',
    'deleteSeenOnceBefore',
  ],
  overrides: ['set'],
  events: ['append', 'deleteOlderThan'],
  cursors: ['advance', 'reset', 'remove'],
  meta: ['set', 'delete'],
  sessions: ['open', 'update', 'close', 'closeDangling', 'trim'],
  revokedTokens: ['revoke'],
  deviceKeys: ['enrol', 'reset'],
} as const satisfies { readonly [R in keyof Repos]: readonly (keyof Repos[R])[] };

type Fn = (...args: never[]) => unknown;
export type RepoName = keyof typeof WRITE_METHODS;
export type MethodOf<R extends RepoName> = (typeof WRITE_METHODS)[R][number];
export type MethodFn<R extends RepoName, M> = M extends keyof Repos[R]
  ? Repos[R][M] extends Fn
    ? Repos[R][M]
    : never
  : never;

/** One repository write: `{ repo: 'meta', method: 'set', args: ['k', 'v'] }`. */
export type RepoCommand = {
  [R in RepoName]: {
    [M in MethodOf<R>]: {
      readonly repo: R;
      readonly method: M;
      readonly args: Parameters<MethodFn<R, M>>;
      readonly at?: number;
    };
  }[MethodOf<R>];
}[RepoName];

/** The store's own commands: a real write rolled back (writability and liveness), and a WAL checkpoint. */
export type StoreCommand =
  | { readonly repo: 'store'; readonly method: 'probe'; readonly args: [at: number, busyTimeoutMs: number] }
  | { readonly repo: 'store'; readonly method: 'checkpoint'; readonly args: [mode: CheckpointMode] };

export type WriteCommand = RepoCommand | StoreCommand;

/** What a command returns (the repository method's result type). */
export type WriteResult<C extends WriteCommand> = C extends { repo: infer R extends RepoName; method: infer M }
  ? M extends MethodOf<R>
    ? ReturnType<MethodFn<R, M>>
    : never
  : C extends { method: 'probe' }
    ? string | null
    : C extends { method: 'checkpoint' }
      ? CheckpointResult
      : never;

/**
 * Sends a command to the one writer; resolves with its result once the writer has run it (committed),
 * rejects with the writer's VigilError. Nothing waits synchronously: the caller's event loop turns.
 */
export type WriteSend = <C extends WriteCommand>(command: C) => Promise<WriteResult<C>>;

/** A failed command as it crosses threads; rebuilt into the same VigilError on the caller's side. */
export interface WireError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly context: readonly string[];
}

export function isWriteMethod(repo: string, method: string): boolean {
  const methods = (WRITE_METHODS as Record<string, readonly string[]>)[repo];
  return methods?.includes(method);
}

/** The writer's clock: the time of the command being executed, else the wall clock. */
export class CommandClock {
  current: number | null = null;
  now(): number {
    return this.current ?? Date.now();
  }
}

/** The writer's side: runs one command on its connection. Unknown commands are refused, not guessed. */
export function executeWrite(db: Database, repos: Repos, clock: CommandClock, command: WriteCommand): unknown {
  clock.current = 'at' in command && typeof command.at === 'number' ? command.at : null;
  try {
    return execute(db, repos, command);
  } finally {
    clock.current = null;
  }
}

function execute(db: Database, repos: Repos, command: WriteCommand): unknown {
  if (command.repo === 'store') {
    if (command.method === 'probe') return probeWrite(db, command.args[0], command.args[1]);
    if (command.method === 'checkpoint') return walCheckpoint(db, command.args[0]);
  } else if (isWriteMethod(command.repo, command.method)) {
    const repo = repos[command.repo] as unknown as Record<string, (...args: unknown[]) => unknown>;
    return repo[command.method]!(...(command.args as unknown[]));
  }
  throw new VigilError('INTERNAL', `unknown write command ${String(command.repo)}.${String(command.method)}`);
}

export function toWireError(err: unknown): WireError {
  const e = storeError(err, 'write');
  return { code: e.code, message: e.message, context: e.context };
}

export function fromWireError(err: WireError): VigilError {
  return new VigilError(err.code, err.message, err.context);
}

export type { CheckpointMode, CheckpointResult } from './database.js';
