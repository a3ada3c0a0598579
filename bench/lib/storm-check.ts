/**
 * What the storm bench (bench/storm.ts) proves after a storm: every event ACKed to a panel is in
 * the journal (none lost, duplicates counted apart: a panel that missed an ACK sends again), and the
 * automation peer got every one of them, in the journal's order, each panel's AC loss before its
 * restore. The journal is read on a read-only connection of its own while the gateway runs (WAL).
 */
import { openDatabase } from '../../src/store/database.js';

/** An AC-loss event (E) or its restore (R) of one account: the key both sides are compared by. */
export type StormKey = `${string}${'E' | 'R'}`;

/** The Contact ID 301 (AC loss) rows of the journal in id order, as keys. */
export function journalStormKeys(dbPath: string): StormKey[] {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const rows = db
      .prepare(`SELECT account, qualifier FROM events WHERE protocol = 'ADM-CID' AND code = '301' ORDER BY id`)
      .all() as { account: string; qualifier: string | null }[];
    return rows.map((r) => `${r.account}${r.qualifier === 'R' ? 'R' : 'E'}` as StormKey);
  } finally {
    db.close();
  }
}

/** An MLR2 Contact ID line ("5RRL 18AAAAQEEEGGZZZ") of a 301 event as its key; null for any other line. */
export function mlr2StormKey(line: string): StormKey | null {
  const match = /18([0-9A-F]{4})([ER])301\d\d\d\d\d$/.exec(line);
  return match ? (`${match[1]}${match[2]}` as StormKey) : null;
}

export interface StormCheck {
  /** Keys the panels had ACKed. */
  readonly acked: number;
  /** ACKed keys missing from the journal: events lost. */
  readonly lost: number;
  /** Journal rows beyond the first of the same key (a panel sent again after a missed ACK). */
  readonly duplicates: number;
  /** Distinct journal keys the automation never got. */
  readonly undelivered: number;
  /** Whether the automation's first copies came in the journal's order of first rows. */
  readonly inOrder: boolean;
  /** Accounts whose restore reached the automation before their loss. */
  readonly restoreFirst: number;
}

/** First occurrences in order (a key that comes again is counted, not listed twice). */
function firsts(keys: readonly StormKey[]): { list: StormKey[]; repeats: number } {
  const seen = new Set<StormKey>();
  const list: StormKey[] = [];
  for (const key of keys) if (!seen.has(key)) seen.add(key), list.push(key);
  return { list, repeats: keys.length - list.length };
}

export function checkStorm(
  acked: ReadonlySet<StormKey>,
  journal: readonly StormKey[],
  automation: readonly StormKey[],
): StormCheck {
  const stored = firsts(journal);
  const delivered = firsts(automation);
  const storedSet = new Set(stored.list);
  const deliveredSet = new Set(delivered.list);
  let lost = 0;
  for (const key of acked) if (!storedSet.has(key)) lost++;
  let undelivered = 0;
  for (const key of stored.list) if (!deliveredSet.has(key)) undelivered++;
  const position = new Map(delivered.list.map((key, i) => [key, i]));
  let restoreFirst = 0;
  for (const [key, i] of position)
    if (key.endsWith('R') && (position.get(`${key.slice(0, -1)}E` as StormKey) ?? Number.POSITIVE_INFINITY) > i)
      restoreFirst++;
  const inOrder =
    delivered.list.length === stored.list.length && delivered.list.every((key, i) => key === stored.list[i]);
  return { acked: acked.size, lost, duplicates: stored.repeats, undelivered, inOrder, restoreFirst };
}
