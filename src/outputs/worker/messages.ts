/**
 * Messages between the main thread (OutputWorkerHost) and the output worker. Plain structured-clone data only.
 */
import type { ComponentState } from '../../core/health.js';
import type { LogFields, LogLevel } from '../../core/logger.js';
import type { OutputSettings } from '../../settings/schema-outputs.js';
import type { WriterEndpoint } from '../../writer/command-channel.js';
import type { OutputTimings } from '../output-timings.js';

export interface WorkerInit {
  /** The SQLite file the main thread's Store opened (the worker opens its own connection to it). */
  readonly dbPath: string;
  /**
   * The channel to the single writer (docs/store.md §One writer), when it ran as the worker was started: the
   * cursor writes go to it, this worker's connection only reads.
   */
  readonly endpoint?: WriterEndpoint;
  readonly outputs: readonly OutputSettings[];
  /** The host has the serial port layer: serial outputs' lines are relayed to it (else they cannot run). */
  readonly serial: boolean;
  readonly logLevel: LogLevel;
  /** general.instance_name (the `gateway` of webhook bodies). */
  readonly instanceName?: string;
  /** Tests: shorter timings. */
  readonly timings?: Partial<OutputTimings>;
}

export type HostMessage =
  | { readonly type: 'wake' }
  | { readonly type: 'stop' }
  /** A new writer thread: the worker's new channel to it (null: the writer died, none until the next). */
  | { readonly type: 'writer'; readonly endpoint: WriterEndpoint | null }
  | LinkHostMessage;

/**
 * A serial output's line, which the main thread's serial port layer owns (docs/outputs.md §Threads), seen from the
 * worker: the answer to a connect or close of the same `seq`, the bytes the line read, the line lost by itself.
 */
export type LinkHostMessage =
  | { readonly type: 'link-connected'; readonly output: number; readonly seq: number; readonly error: string | null }
  | { readonly type: 'link-closed'; readonly output: number; readonly seq: number }
  | { readonly type: 'link-data'; readonly output: number; readonly bytes: Uint8Array }
  | { readonly type: 'link-lost'; readonly output: number; readonly reason: string };

/** What the worker asks of a serial output's line on the main thread (answered by LinkHostMessage). */
export type LinkWorkerMessage =
  | { readonly type: 'link-connect'; readonly output: number; readonly seq: number }
  | { readonly type: 'link-write'; readonly output: number; readonly bytes: Uint8Array }
  | { readonly type: 'link-close'; readonly output: number; readonly seq: number };

export type MetricValues = Record<string, string | number | boolean | null>;

export type WorkerMessage =
  | LinkWorkerMessage
  | { readonly type: 'started' }
  | { readonly type: 'start-failed'; readonly error: string }
  | {
      readonly type: 'report';
      readonly name: string;
      readonly kind: string;
      readonly state: ComponentState;
      readonly detail: string | null;
      readonly metrics?: MetricValues;
    }
  | { readonly type: 'metrics'; readonly name: string; readonly metrics: MetricValues }
  | { readonly type: 'remove'; readonly name: string }
  /** A TCP server output refused a client outside its allow-list (journaled by the main thread). */
  | { readonly type: 'client-refused'; readonly output: number; readonly remote: string }
  | {
      readonly type: 'log';
      readonly level: LogLevel;
      readonly namespace: string;
      readonly message: string;
      readonly fields?: LogFields;
    }
  | { readonly type: 'stopped' };
