/**
 * The gateway's own group-commit figures over a measured window, from GET /metrics (docs/metrics.md):
 * commits, events per commit and the mean commit time (vigil_journal_batch_events and
 * vigil_journal_commit_seconds, their _sum and _count). The reference receivers have no API: null.
 */
import type { GatewayChild } from './gateway-child.js';

export interface CommitCounters {
  readonly commits: number;
  readonly events: number;
  readonly seconds: number;
}

export interface CommitFigures {
  readonly commits: number;
  readonly eventsPerCommit: number;
  /** Mean time from a batch leaving the main thread to its answer (ms). */
  readonly commitMs: number;
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** The counters now; null when the gateway has no metrics (a reference receiver) or they cannot be read. */
export async function readCommitCounters(gateway: GatewayChild): Promise<CommitCounters | null> {
  if (!gateway.token) return null;
  try {
    const response = await gateway.api('GET', '/metrics');
    if (response.status !== 200) return null;
    return {
      commits: metric(response.text, 'vigil_journal_batch_events_count'),
      events: metric(response.text, 'vigil_journal_batch_events_sum'),
      seconds: metric(response.text, 'vigil_journal_commit_seconds_sum'),
    };
  } catch {
    return null;
  }
}

export function commitFigures(before: CommitCounters | null, after: CommitCounters | null): CommitFigures | null {
  if (!before || !after) return null;
  const commits = after.commits - before.commits;
  if (commits <= 0) return null;
  return {
    commits,
    eventsPerCommit: Math.round(((after.events - before.events) / commits) * 10) / 10,
    commitMs: Math.round(((after.seconds - before.seconds) / commits) * 1e4) / 10,
  };
}
