/**
 * Outputs from the settings (`outputs[]`), for Gateway.buildServices(): one Service per enabled output, rebuilt on
 * every (re)start of the services group (timings: output-timings.ts).
 */
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import { parseKey, type RandomBytes } from '../protocols/dc09/index.js';
import { parseHostPort } from '../settings/fields.js';
import { parseWebhookUrl } from '../settings/webhook-url.js';
import { parseListenAddress } from '../settings/tcp-server-check.js';
import { OUTPUT_TYPES, defaultTcpServer, defaultWebhook, type OutputSettings } from '../settings/schema-outputs.js';
import type { ObjectRecord } from '../store/types.js';
import { createAccountResolver, oidAccount } from './account-resolver.js';
import type { ByteLink } from './byte-link.js';
import { ClientAllowList } from './client-allow-list.js';
import { Dc09Driver } from './dc09-driver.js';
import { createEventFilter } from './event-filter.js';
import { JsonDriver } from './json-driver.js';
import { Outbox, type OutboxCursorWrites, type OutboxCursors, type OutboxJournal } from './outbox.js';
import { LinkDelivery } from './link-delivery.js';
import { OutputRunner, type DeliveryStrategy } from './output-runner.js';
import { outputTimings, type OutputTimings } from './output-timings.js';
import type { ProtocolDriver } from './protocol-driver.js';
import { SerialLink, outputLineOptions } from './serial-link.js';
import { createStreamDriver, isStreamProtocol, protocolLabel } from './stream-driver.js';
import { TcpLink } from './tcp-link.js';
import { TcpServerLink } from './tcp-server-link.js';
import { UdpLink } from './udp-link.js';
import { UnavailableOutput } from './unavailable-output.js';
import { WebhookDelivery } from './webhook-delivery.js';

export interface OutputStore {
  readonly events: OutboxJournal;
  readonly cursors: OutboxCursors;
  /** The cursor writes, explicit and awaited (the Store's `write` view fits). */
  readonly write: { readonly cursors: OutboxCursorWrites };
  readonly objects: { get(id: number): ObjectRecord | null };
  readonly overrides: {
    resolve(device: { uid?: string | null; account?: string | null }, relatedOid: string | null): string | null;
  };
}

export interface OutputDeps {
  readonly store: OutputStore;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The ingest bus `event-stored` signal (see OutputRunnerOptions.onEventStored). */
  readonly onEventStored?: (listener: () => void) => () => void;
  /** Tests: a link of their own instead of the one the settings describe. */
  readonly createLink?: (settings: OutputSettings) => ByteLink;
  /** Tests: shorter timings. */
  readonly timings?: Partial<OutputTimings>;
  /** Tests: a fixed pad source for encrypted DC-09 messages. */
  readonly randomBytes?: RandomBytes;
  /** general.instance_name: the `gateway` of webhook bodies. */
  readonly instanceName?: string;
  /**
   * A type 3 output's link. In the output worker: a line of the main thread's serial port layer, relayed
   * (worker/relayed-link.ts, docs/outputs.md §Threads). Else `serial` makes one.
   */
  readonly comLink?: (settings: OutputSettings) => ByteLink;
  /** The serial port layer (hw/serial) for type 3 outputs built on the thread that owns it (tests, tools). */
  readonly serial?: SerialLineFactory;
  /** A TCP server output closed a client outside its allow-list; the main thread journals it (rate-limited). */
  readonly onClientRefused?: (refusal: ClientRefusal) => void;
}

export interface ClientRefusal {
  readonly output: number;
  /** "host:port" of the refused client. */
  readonly remote: string;
}

function serverLink(settings: OutputSettings, deps: OutputDeps, logger: Logger): ByteLink | null {
  const address = parseListenAddress(settings.identificator);
  if (!address) return null;
  const allowList = new ClientAllowList((settings.tcp_server ?? defaultTcpServer()).allowed_clients);
  return new TcpServerLink({
    ...address,
    allowList,
    onRefused: (remote) => {
      logger.warn('automation client refused: not on the allow-list', {
        output: settings.id,
        remote,
        allowed: allowList.description,
      });
      deps.onClientRefused?.({ output: settings.id, remote });
    },
    onReplaced: (previous, next) =>
      logger.warn('a new automation client replaces the connected one', { output: settings.id, previous, next }),
  });
}

function defaultLink(settings: OutputSettings, deps: OutputDeps): ByteLink | null {
  if (settings.type === OUTPUT_TYPES.com) {
    if (deps.comLink) return deps.comLink(settings);
    return deps.serial ? new SerialLink(outputLineOptions(settings), deps.serial) : null;
  }
  const target = parseHostPort(settings.identificator);
  if (!target) return null;
  return settings.type === OUTPUT_TYPES.udp ? new UdpLink(target) : new TcpLink(target);
}

function buildWebhook(settings: OutputSettings, deps: OutputDeps, logger: Logger): Service {
  const url = parseWebhookUrl(settings.identificator);
  if (!url.ok) return new UnavailableOutput(settings.id, `bad webhook URL: ${url.reason}`, deps.health, logger);
  const strategy = new WebhookDelivery({
    url: url.url,
    settings: settings.webhook ?? defaultWebhook(),
    gateway: deps.instanceName ?? '',
    uidOf: (objectId) => deps.store.objects.get(objectId)?.uid ?? null,
  });
  return runner(settings, deps, logger, strategy, { ...outputTimings(settings), ...deps.timings });
}

/** The one runner of every output kind (output-runner.ts), with its delivery strategy. */
function runner(
  settings: OutputSettings,
  deps: OutputDeps,
  logger: Logger,
  strategy: DeliveryStrategy,
  timings: OutputTimings,
): Service {
  return new OutputRunner({
    id: settings.id,
    strategy,
    outbox: newOutbox(settings, deps),
    timings,
    health: deps.health,
    logger,
    clock: deps.clock,
    ...(deps.onEventStored ? { onEventStored: deps.onEventStored } : {}),
  });
}

function newOutbox(settings: OutputSettings, deps: OutputDeps): Outbox {
  return new Outbox({
    outputId: settings.id,
    journal: deps.store.events,
    cursors: deps.store.cursors,
    cursorWrites: deps.store.write.cursors,
    filter: createEventFilter(settings.filters),
    resolveAccount: createAccountResolver(deps.store, settings.oid),
  });
}

export function buildOutput(settings: OutputSettings, deps: OutputDeps): Service {
  const logger = deps.logger.child(`out:${settings.id}`);
  if (settings.type === OUTPUT_TYPES.webhook) return buildWebhook(settings, deps, logger);
  const server = settings.type === OUTPUT_TYPES.tcp_server;
  // Validation refuses it (webhook-check.ts); a stored file edited by hand must not crash the worker.
  if (settings.protocol === 'JSON' && !server)
    return new UnavailableOutput(
      settings.id,
      'protocol "JSON" needs type 4 (webhook) or 5 (TCP server)',
      deps.health,
      logger,
    );
  const link = deps.createLink
    ? deps.createLink(settings)
    : server
      ? serverLink(settings, deps, logger)
      : defaultLink(settings, deps);
  if (!link) {
    const reason =
      settings.type === OUTPUT_TYPES.com
        ? 'no serial port layer was given to the outputs'
        : `bad identificator "${settings.identificator}"`;
    return new UnavailableOutput(settings.id, reason, deps.health, logger);
  }
  const timings = { ...outputTimings(settings), ...deps.timings };
  const linkRunner = <R>(driver: ProtocolDriver<R>): Service =>
    runner(
      settings,
      deps,
      logger,
      new LinkDelivery({ link, driver, timings, protocolLabel: protocolLabel(settings) }),
      timings,
    );
  if (settings.protocol === 'SIA-DC09') {
    const sia = settings.sia_dc09;
    const key = sia?.encryption_enabled ? parseKey(sia.encryption_key) : null;
    return linkRunner(
      new Dc09Driver({
        receiver: settings.receiver_number,
        line: settings.line_number,
        supervisionAccount: oidAccount(settings.oid),
        key,
        clock: deps.clock,
        ...(deps.randomBytes ? { randomBytes: deps.randomBytes } : {}),
      }),
    );
  }
  if (settings.protocol === 'JSON') {
    return linkRunner(
      new JsonDriver({
        gateway: deps.instanceName ?? '',
        uidOf: (objectId) => deps.store.objects.get(objectId)?.uid ?? null,
        now: () => deps.clock.now(),
      }),
    );
  }
  if (!isStreamProtocol(settings.protocol))
    return new UnavailableOutput(settings.id, `unknown protocol "${settings.protocol}"`, deps.health, logger);
  return linkRunner(createStreamDriver({ ...settings, protocol: settings.protocol }, timings.ackTimeoutMs, logger));
}

/** Enabled outputs only; a disabled output keeps its cursor and resumes from it when enabled again. */
export function buildOutputs(outputs: readonly OutputSettings[], deps: OutputDeps): Service[] {
  return outputs.filter((o) => o.enabled).map((o) => buildOutput(o, deps));
}
