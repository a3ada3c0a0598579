/**
 * What a modem receiver shows in /api/status (docs/modem.md §Status): signal (`csq` 0..31 or 99,
 * `rssi_dbm`), `registered`, the modem's make, model and IMEI, and counters; and the trouble rule
 * (signal below `min_csq` or unknown, or not registered).
 */
import type { ModemIdentity } from './modem-startup.js';

interface Sources {
  readonly driver: {
    readonly stats: Readonly<Record<string, number>>;
    readonly lastRoundTripMs: number | null;
    readonly overlongLines: number;
  };
  readonly inbox: { readonly stats: Readonly<Record<string, number>>; readonly pendingParts: number };
  readonly callers: { readonly size: number };
}

export class ModemMetrics {
  identity: ModemIdentity = { manufacturer: null, model: null, imei: null };
  csq: number | null = null;
  rssiDbm: number | null = null;
  registered: boolean | null = null;
  urcs = 0;
  rings = 0;
  calls = 0;
  callLinkTests = 0;
  /** ATZ recoveries started. */
  resets = 0;
  /** Port reopens asked for after ATZ went unanswered. */
  reopens = 0;
  private readonly minCsq: number;

  constructor(minCsq: number) {
    this.minCsq = minCsq;
  }

  signal(s: { csq: number; rssiDbm: number | null }): void {
    this.csq = s.csq;
    this.rssiDbm = s.rssiDbm;
  }

  registration(registered: boolean): void {
    this.registered = registered;
  }

  /** Why the radio is in trouble now, or null (unknown values are not trouble until read). */
  troubleDetail(): string | null {
    if (this.registered === false) return 'not registered to the network';
    if (this.csq !== null && (this.csq === 99 || this.csq < this.minCsq))
      return `signal ${this.csq === 99 ? 'unknown' : `low (csq ${this.csq})`}`;
    return null;
  }

  figures(s: Sources): Record<string, string | number | boolean | null> {
    const at = s.driver.stats;
    const sms = s.inbox.stats;
    return {
      csq: this.csq,
      rssi_dbm: this.rssiDbm,
      registered: this.registered,
      manufacturer: this.identity.manufacturer,
      model: this.identity.model,
      imei: this.identity.imei,
      sms_received: sms.received ?? 0,
      sms_journaled: sms.journaled ?? 0,
      sms_deleted: sms.deleted ?? 0,
      sms_corrupt: sms.corrupt ?? 0,
      sms_refused_plain: sms.refused ?? 0,
      concat_parts_waiting: s.inbox.pendingParts,
      calls: this.calls,
      call_link_tests: this.callLinkTests,
      known_numbers: s.callers.size,
      at_commands: at.commands ?? 0,
      at_timeouts: at.timeouts ?? 0,
      at_round_trip_ms: s.driver.lastRoundTripMs === null ? null : Math.round(s.driver.lastRoundTripMs * 10) / 10,
      urcs: this.urcs,
      overlong_lines: s.driver.overlongLines,
      resets: this.resets,
      reopens_requested: this.reopens,
    };
  }
}
