/**
 * Where each output stands in the event journal: the id of the last event it delivered (or
 * deliberately skipped). Outputs read `events.id > cursor` oldest first (EventJournal.readAfter).
 */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';

export interface OutputCursor {
  readonly outputId: number;
  readonly lastEventId: number;
  readonly updatedAt: number | null;
}

export class OutputCursors {
  private readonly clock: Clock;
  private readonly sql: StatementCache;

  constructor(db: Database, clock: Clock) {
    this.clock = clock;
    this.sql = new StatementCache(db);
  }

  /** The last DC-09 sequence number the output stored with its cursor (migration 3); 0 when none. */
  sequence(outputId: number): number {
    return guard('read output sequence', () => {
      const row = this.sql.get('SELECT sequence FROM output_cursors WHERE output_id = ?').get(outputId) as
        | { sequence: number }
        | undefined;
      return row?.sequence ?? 0;
    });
  }

  /** 0 when the output never stored a cursor (it starts from the beginning of the journal). */
  get(outputId: number): number {
    return guard('read output cursor', () => {
      const row = this.sql.get('SELECT last_event_id FROM output_cursors WHERE output_id = ?').get(outputId) as
        | { last_event_id: number }
        | undefined;
      return row?.last_event_id ?? 0;
    });
  }

  /**
   * Moves the cursor forward, never back: a late acknowledgement of an older batch cannot
   * make the output resend what it already delivered.
   */
  advance(outputId: number, lastEventId: number, sequence: number | null = null): void {
    // The DC-09 sequence (when given) is written in the same statement: cursor and sequence
    // always describe the same moment (docs/dc09.md "Output sequence numbers").
    guard('advance output cursor', () =>
      this.sql
        .get(
          `INSERT INTO output_cursors (output_id, last_event_id, updated_at, sequence) VALUES (@id, @last, @now, coalesce(@sequence, 0))
           ON CONFLICT (output_id) DO UPDATE SET
             last_event_id = max(last_event_id, excluded.last_event_id), updated_at = excluded.updated_at,
             sequence = coalesce(@sequence, sequence)`,
        )
        .run({ id: outputId, last: lastEventId, now: this.clock.now(), sequence }),
    );
  }

  /** Sets the cursor exactly, backwards included (an operator replaying, a new output starting at the head). */
  reset(outputId: number, lastEventId: number): void {
    guard('reset output cursor', () =>
      this.sql
        .get(
          `INSERT INTO output_cursors (output_id, last_event_id, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (output_id) DO UPDATE SET last_event_id = excluded.last_event_id, updated_at = excluded.updated_at`,
        )
        .run(outputId, lastEventId, this.clock.now()),
    );
  }

  remove(outputId: number): void {
    guard('remove output cursor', () => this.sql.get('DELETE FROM output_cursors WHERE output_id = ?').run(outputId));
  }

  all(): OutputCursor[] {
    return guard('list output cursors', () =>
      (
        this.sql.get('SELECT * FROM output_cursors ORDER BY output_id').all() as Array<{
          output_id: number;
          last_event_id: number;
          updated_at: number | null;
        }>
      ).map((r) => ({ outputId: r.output_id, lastEventId: r.last_event_id, updatedAt: r.updated_at })),
    );
  }
}
