/**
 * A real SQLite store in a temp dir, a health registry, a hand-moved clock for message timestamps, and outputs built
 * exactly as the gateway builds them (buildOutput) but with short timings, so retry and failure tests take
 * milliseconds. append() journals events and rings the outputs like the ingest bus does.
 */
import type { Test } from 'uvu';
import type { HealthRegistry } from '../../../src/core/health.js';
import type { Service } from '../../../src/core/service.js';
import { buildOutput, type OutputDeps } from '../../../src/outputs/index.js';
import type { OutputTimings } from '../../../src/outputs/output-timings.js';
import type { OutputSettings } from '../../../src/settings/schema-outputs.js';
import type { NewEvent } from '../../../src/core/event-row.js';
import { sampleEvent, startStore, type StoreFixture } from '../../store/helpers/store-fixture.js';

export const FAST: OutputTimings = {
  ackTimeoutMs: 300,
  retries: 3,
  supervisionIntervalMs: 0,
  probeMinMs: 100,
  probeMaxMs: 100,
  reconnectDelayMs: 30,
  pollIntervalMs: 50,
  cursorFlushMs: 50,
  metricsIntervalMs: 30,
  noClientFailMs: 60_000,
};

export interface OutputFixture extends StoreFixture {
  readonly states: Array<{ output: number; state: string }>;
  /** Journals the events (one transaction) and signals "event-stored"; returns their ids. */
  append(events: Partial<NewEvent>[]): Promise<number[]>;
  output(settings: Partial<OutputSettings>, deps?: Partial<OutputDeps>): Service;
}

/** A Contact ID row as the DC-09 receiver journals an ADM-CID event. */
export function cidEvent(overrides: Partial<NewEvent> = {}): Partial<NewEvent> {
  return {
    protocol: 'ADM-CID',
    eventClass: 'alarm',
    qualifier: 'E',
    code: '130',
    groupNo: '01',
    zoneNo: '015',
    account: '1234',
    raw: Buffer.from('"ADM-CID"0001R1L1#1234[#1234|1130 01 015]'),
    ...overrides,
  };
}

/** A SIA row as the DC-09 receiver journals a SIA-DCS event. */
export function siaEvent(overrides: Partial<NewEvent> = {}): Partial<NewEvent> {
  return {
    protocol: 'SIA-DCS',
    eventClass: 'alarm',
    qualifier: null,
    code: 'BA',
    groupNo: '1',
    zoneNo: '03',
    account: '1234',
    ...overrides,
  };
}

export function outputSettings(overrides: Partial<OutputSettings>): OutputSettings {
  return {
    id: 1,
    name: 'Out 1',
    type: 1,
    protocol: 'MLR2',
    identificator: '127.0.0.1:9',
    oid: 0x1f,
    receiver_number: 1,
    line_number: 1,
    filters: { receivers: [], event_classes: [] },
    enabled: true,
    ...overrides,
  } as OutputSettings;
}

/**
 * An output's failed / restored transitions as the health registry shows them (what the
 * HealthEventBridge turns into output_failed / output_restored).
 */
export function recordOutputStates(
  health: HealthRegistry,
  record: (output: number, state: 'failed' | 'restored') => void,
): () => void {
  return health.onChange((next, previous) => {
    if (next.kind !== 'output') return;
    const output = Number(next.name.slice('out:'.length));
    if (next.state === 'failed' && previous?.state !== 'failed') record(output, 'failed');
    else if (next.state === 'ok' && previous?.state === 'failed') record(output, 'restored');
  });
}

export async function startOutputFixture(): Promise<OutputFixture> {
  const base = await startStore();
  const listeners = new Set<() => void>();
  const states: Array<{ output: number; state: string }> = [];
  recordOutputStates(base.health, (output, state) => states.push({ output, state }));
  const built: Service[] = [];
  const fixture: OutputFixture = {
    ...base,
    states,
    cleanup: async () => {
      // A failed assertion must not leave an output running (the test process would never end).
      for (const service of built) await service.stop();
      await base.cleanup();
    },
    async append(events) {
      const refs = await base.store.write.events.append(events.map((e) => sampleEvent(e)));
      for (const listener of listeners) listener();
      return refs.map((r) => r.id);
    },
    output(settings, deps = {}) {
      const service = buildOutput(outputSettings(settings), {
        store: base.store,
        health: base.health,
        logger: base.logger.child('out'),
        clock: base.clock,
        onEventStored: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        timings: FAST,
        ...deps,
      });
      built.push(service);
      return service;
    },
  };
  return fixture;
}

/**
 * Gives every test of `suite` a fresh output fixture and a listening automation peer (`use` receives both), and
 * closes the peer and then the fixture after it.
 */
export function eachTestWithPeer<P extends { listen(): Promise<number>; close(): Promise<void> }>(
  suite: Test,
  Peer: new () => P,
  use: (setup: { fx: OutputFixture; peer: P }) => void,
): void {
  let current: { fx: OutputFixture; peer: P } | null = null;
  suite.before.each(async () => {
    current = { fx: await startOutputFixture(), peer: new Peer() };
    use(current);
    await current.peer.listen();
  });
  suite.after.each(async () => {
    if (!current) return;
    await current.peer.close();
    await current.fx.cleanup();
    current = null;
  });
}
