/**
 * When the newest alarm arrived, for the update channel's quiet period (docs/updates.md "When a box
 * installs"): an event of class `alarm` (docs/dc09.md "Event classification": alarms, supervisory,
 * troubles, tampers) from a device, not the gateway's own. At start it looks back through the journal's
 * last ALARM_QUIET_MINUTES, so a restart does not forget an alarm a minute old.
 */
import { ALARM_QUIET_MINUTES } from './channel-gates.js';

/** What an alarm is told by: the journal's event, as the ingest's bus and the store hand it out. */
export interface AlarmFacts {
  readonly eventClass: string;
  readonly protocol: string;
  readonly receivedAt: number;
}

export interface AlarmSource {
  on(type: 'event-stored', listener: (payload: { readonly event: AlarmFacts }) => void): unknown;
}

/** The journal's query, as far as the look back needs it (src/store/event-journal.ts). */
export type RecentEvents = (filter: { readonly receiverIds: null; readonly from: number; readonly limit: number }) => {
  readonly items: readonly AlarmFacts[];
};

const isDeviceAlarm = (e: AlarmFacts) => e.eventClass === 'alarm' && e.protocol !== 'INTERNAL';

export class AlarmWatch {
  private last: number | null = null;

  constructor(bus: AlarmSource) {
    bus.on('event-stored', ({ event }) => {
      if (isDeviceAlarm(event) && (this.last === null || event.receivedAt > this.last)) this.last = event.receivedAt;
    });
  }

  /** Reads the journal's recent past once (bounded: one page of the last quiet period). */
  lookBack(query: RecentEvents, now: number): void {
    const page = query({ receiverIds: null, from: now - ALARM_QUIET_MINUTES * 60_000, limit: 1000 });
    for (const event of page.items)
      if (isDeviceAlarm(event) && (this.last === null || event.receivedAt > this.last)) this.last = event.receivedAt;
  }

  lastAlarmAt(): number | null {
    return this.last;
  }
}
