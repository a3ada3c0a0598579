/** The plain counters of one receiver, published to its health entry (docs/receivers.md §Health). */
import type { HealthRegistry } from '../core/health.js';
import type { FrameQuirk } from '../protocols/dc09/frame.js';
import type { MessageQuirk } from '../protocols/dc09/message.js';

export type Dc09Quirk = FrameQuirk | MessageQuirk;

/** Plain numbers bumped on the hot path; published to the health registry on a timer. */
export class ReceiverCounters {
  /** Open TCP connections (UDP: always 0). */
  connections = 0;
  /** Connections accepted since start. */
  accepted = 0;
  /** Connections refused because max_connections was reached. */
  refused = 0;
  /** Connections refused: their source already had max_connections_per_source open. */
  refusedSource = 0;
  /** Connections refused: their source exceeded max_accepts_per_source_per_min. */
  refusedRate = 0;
  /** Connections refused: the gateway's connection budget had no room and no stranger to shed. */
  refusedBudget = 0;
  /** Stranger connections closed to make room for a newcomer (core/admission/socket-pool.ts). */
  shed = 0;
  /** Connections closed because no valid frame came within first_frame_timeout_s of silence. */
  firstFrameTimeouts = 0;
  /** UDP datagrams dropped undecided: their source exceeded max_datagrams_per_source_per_s. */
  rateLimited = 0;
  /** UDP replies not sent: longer than the datagram, to a source not known yet. */
  repliesWithheld = 0;
  /** Valid frames dropped unanswered: their account has no object and the new-object allowance was spent. */
  refusedNewObject = 0;
  /** Frames with a good CRC and length. */
  frames = 0;
  /** Journal rows written. */
  events = 0;
  acks = 0;
  naks = 0;
  duhs = 0;
  /** Frames or datagrams dropped for CRC, length or format: never answered. */
  rejected = 0;
  linkTests = 0;
  /** Device links currently attached (TCP). */
  links = 0;
  /** Device-link messages ignored (unexpected, undecodable, no link). */
  linkIgnored = 0;
  /** UDP datagrams dropped because too many awaited their commit. */
  dropped = 0;
  /** Replayed messages ACKed without journaling their events again (docs/dc09.md "Replays"). */
  replays = 0;
  /** Frames that showed each tolerated deviation (docs/dc09.md "Tolerances"), by quirk. */
  readonly quirks: Record<Dc09Quirk, number> = {
    'binary-crc': 0,
    'cr-counted': 0,
    'trailing-bytes': 0,
    'empty-line': 0,
    'text-account': 0,
  };

  /** Called only for frames that showed a deviation (the standard path never gets here). */
  countQuirks(quirks: readonly Dc09Quirk[]): void {
    for (const quirk of quirks) this.quirks[quirk]++;
  }

  publish(health: HealthRegistry, name: string, listening: string | null): void {
    health.setMetrics(name, {
      connections: this.connections,
      accepted: this.accepted,
      refused: this.refused,
      refused_source: this.refusedSource,
      refused_rate: this.refusedRate,
      refused_budget: this.refusedBudget,
      shed: this.shed,
      first_frame_timeouts: this.firstFrameTimeouts,
      rate_limited: this.rateLimited,
      replies_withheld: this.repliesWithheld,
      refused_new_object: this.refusedNewObject,
      frames: this.frames,
      events: this.events,
      acks: this.acks,
      naks: this.naks,
      duhs: this.duhs,
      rejected: this.rejected,
      link_tests: this.linkTests,
      links: this.links,
      link_ignored: this.linkIgnored,
      dropped: this.dropped,
      replays: this.replays,
      quirk_binary_crc: this.quirks['binary-crc'],
      quirk_cr_counted: this.quirks['cr-counted'],
      quirk_trailing_bytes: this.quirks['trailing-bytes'],
      quirk_empty_line: this.quirks['empty-line'],
      quirk_text_account: this.quirks['text-account'],
      listening,
    });
  }
}
