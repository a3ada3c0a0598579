/**
 * What a storm writes per stored event at a FIXED number of events per commit (bench/storm-writes.ts,
 * docs/writer.md §Bytes per event on slow storage): one build's own receiver path (FrameSession with
 * session rows, EventIngest, the writer thread) on a real store file, N known panels as the storm bench
 * registers them, each sending its AC loss on a new connection (a session row opened, the first
 * sighting written at once) and then its restore on the same connection, `perCommit` panels at a time:
 * their frames reach the sessions in one turn with no gather armed, so each group is one journal commit
 * (checked), and the next group is fed once every ACK of this one is out. No clock, no sockets, no load
 * in the figure: the bytes (write_bytes of this process, /proc/self/io; the writer thread writes them)
 * depend only on what each commit holds, so two builds compare exactly.
 *
 * A build is loaded from its compiled tree (`dist/`), this one's or another's (BENCH_COMPARE): every
 * module comes from that tree, the writer thread too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as v from 'valibot';
import type { SessionDeps } from '../../src/receivers/session-deps.js';
import { ipReceiverSchema } from '../../src/settings/schema-receivers.js';
import { ackingChannel, type PendingAcks } from './acking-channel.js';
import { writeBytes } from './proc-io.js';
import { stormSources } from './storm-sources.js';

/** The modules of one build a storm's writes go through. */
export interface StormBuild {
  readonly root: string;
  readonly clock: typeof import('../../src/core/clock.js');
  readonly health: typeof import('../../src/core/health.js');
  readonly logger: typeof import('../../src/core/logger.js');
  readonly links: typeof import('../../src/devices/link-registry.js');
  readonly ingest: typeof import('../../src/ingest/event-ingest.js');
  readonly wire: typeof import('../../src/writer/wire.js');
  readonly storeWithWriter: typeof import('../../src/writer/store-with-writer.js');
  readonly session: typeof import('../../src/receivers/frame-session.js');
  readonly rules: typeof import('../../src/receivers/dc09-rules.js');
  readonly counters: typeof import('../../src/receivers/receiver-counters.js');
  readonly events: typeof import('../../src/sim/event-data.js');
  readonly identity: typeof import('../../src/sim/identity.js');
  readonly database: typeof import('../../src/store/database.js');
  readonly repos: typeof import('../../src/store/repos.js');
  readonly commands: typeof import('../../src/store/write-commands.js');
}

/** This bench's own build: the tree it was compiled in. */
export const OWN_DIST = new URL('../../', import.meta.url).pathname;

/** Loads a build from its compiled tree (`<tree>/dist/`, or this bench's own `dist/`). */
export async function loadStormBuild(dist: string): Promise<StormBuild> {
  const load = (path: string): Promise<unknown> => import(pathToFileURL(join(dist, path)).href);
  const [clock, health, logger, links, ingest, wire, storeWithWriter, session, rules, counters] = await Promise.all([
    load('src/core/clock.js'),
    load('src/core/health.js'),
    load('src/core/logger.js'),
    load('src/devices/link-registry.js'),
    load('src/ingest/event-ingest.js'),
    load('src/writer/wire.js'),
    load('src/writer/store-with-writer.js'),
    load('src/receivers/frame-session.js'),
    load('src/receivers/dc09-rules.js'),
    load('src/receivers/receiver-counters.js'),
  ]);
  const [events, identity, database, repos, commands] = await Promise.all([
    load('src/sim/event-data.js'),
    load('src/sim/identity.js'),
    load('src/store/database.js'),
    load('src/store/repos.js'),
    load('src/store/write-commands.js'),
  ]);
  return {
    root: dist,
    clock,
    health,
    logger,
    links,
    ingest,
    wire,
    storeWithWriter,
    session,
    rules,
    counters,
    events,
    identity,
    database,
    repos,
    commands,
  } as StormBuild;
}

/** One wave's figures: the bytes it caused to be written, its commits, its events stored. */
export interface WaveWrites {
  readonly wave: 'loss' | 'restore';
  readonly events: number;
  readonly commits: number;
  readonly bytes: number;
}

const ACCOUNT_BASE = '1000';
const RECEIVER_ID = 1;
/** The storm bench's NAT share: half the panels behind 10 addresses (bench/storm.ts). */
const NATS = 10;

/** The receiver as the storm bench seeds it: its id, name and port, every DC-09 rule at its shipped default. */
const RECEIVER_SETTINGS = v.parse(ipReceiverSchema, {
  id: RECEIVER_ID,
  name: 'storm writes',
  port: 10_001,
  bind_address: '127.0.0.1',
});

/** Registers the panels as the storm bench does (seed-settings.ts): one transaction, before the gateway starts. */
function registerPanels(b: StormBuild, path: string, accounts: readonly string[], sources: readonly string[]): void {
  const db = b.database.openDatabase(path);
  try {
    const repos = b.repos.createRepos(db, new b.commands.CommandClock());
    const at = Date.now();
    db.transaction(() => {
      for (let i = 0; i < accounts.length; i++) {
        repos.objects.upsertMain({
          account: accounts[i]!,
          receiverId: RECEIVER_ID,
          receiverKind: 'tcp',
          transport: 'tcp',
          remoteAddress: `${sources[i]}:40000`,
          at,
        });
      }
    }).immediate();
  } finally {
    db.close();
  }
}

/**
 * The storm's two waves through build `b`, `perCommit` panels per commit. Throws when a group did
 * not go in one commit or an event was not stored (the figure would then mean something else).
 */
export async function stormWrites(b: StormBuild, panels: number, perCommit: number): Promise<WaveWrites[]> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-storm-writes-'));
  const path = join(dir, 'vigil.db');
  const logger = b.logger.createLogger('storm-writes', () => undefined, 'error');
  const sessions: Array<import('../../src/receivers/frame-session.js').FrameSession> = [];
  try {
    const accounts = Array.from({ length: panels }, (_, i) => b.identity.deviceAccount(ACCOUNT_BASE, i));
    const sources = stormSources(panels, NATS, Math.floor(panels / 2));
    const first = b.storeWithWriter.storeWithWriter(path, logger, new b.health.HealthRegistry());
    await first.store.start();
    await first.store.stop();
    registerPanels(b, path, accounts, sources);
    const { store, writer } = b.storeWithWriter.storeWithWriter(path, logger, new b.health.HealthRegistry());
    await store.start();
    const ingest = new b.ingest.EventIngest({
      writer: b.wire.borrowedWriter(writer),
      logger,
      sessionLogCount: () => 5,
    });
    try {
      const rules = new b.rules.Dc09Rules('tcp', RECEIVER_SETTINGS);
      const deps: SessionDeps = {
        rules,
        deviceLink: rules,
        counters: new b.counters.ReceiverCounters(),
        ingest,
        links: new b.links.LinkRegistry({
          objects: { get: () => null },
          clock: b.clock.systemClock,
          logger: b.logger.silentLogger,
        }),
        clock: b.clock.systemClock,
        logger: b.logger.silentLogger,
        maxInFlight: 64,
      };
      const acked: PendingAcks = [];
      for (let i = 0; i < panels; i++) {
        // The storm's connection: the registered address, another port (a new connection).
        const channel = ackingChannel(`${sources[i]}:${50_000 + (i % 10_000)}`, acked, i);
        sessions.push(new b.session.FrameSession(channel, deps));
      }
      const waves: WaveWrites[] = [];
      for (const [n, wave] of [
        [0, 'loss'],
        [1, 'restore'],
      ] as const) {
        const bytes0 = writeBytes('self');
        const commits0 = ingest.stats.flushes;
        for (let start = 0; start < panels; start += perCommit) {
          const end = Math.min(panels, start + perCommit);
          const answered: Promise<void>[] = [];
          for (let i = start; i < end; i++) answered.push(new Promise<void>((resolve) => (acked[i] = resolve)));
          // The answer to the group before may have armed a gather whose target is that group's size
          // (src/ingest/batch-gate.ts): ended here, nothing being queued, so this group leaves whole
          // on the next turn instead of in two parts.
          ingest.gate.cancel();
          for (let i = start; i < end; i++) {
            const header = {
              token: 'ADM-CID',
              codes: 'mains',
              account: accounts[i]!,
              receiver: '1',
              line: '1',
              key: null,
              timestamps: true,
            } as const;
            sessions[i]!.feed(
              b.events.eventFrame(header, { sequence: b.events.sequenceText(n + 1), time: Date.now() }, n),
            );
          }
          await Promise.all(answered);
        }
        const commits = ingest.stats.flushes - commits0;
        const expected = Math.ceil(panels / perCommit);
        if (commits !== expected) throw new Error(`${wave} wave: ${commits} commits, not ${expected} (a group split)`);
        waves.push({ wave, events: panels, commits, bytes: writeBytes('self') - bytes0 });
      }
      const stored = store.events.maxId();
      if (stored !== panels * 2) throw new Error(`${stored} events stored, not ${panels * 2}`);
      return waves;
    } finally {
      for (const session of sessions) session.close();
      await ingest.close();
      await store.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
