/**
 * How GET /api/status's output figures read as one phrase: the Link column of an output on the Status view and in
 * `vigil status` (both render the status body). From its health figures: up / down; for a
 * TCP server output (type 5) where it listens, the connected automation client and how many strangers it refused
 * (docs/outputs.md §TCP server).
 */
export function outputLinkSummary(m: Readonly<Record<string, unknown>>): string {
  if (!('listening' in m)) return m.connected === undefined ? '—' : m.connected ? 'up' : 'down';
  if (typeof m.listening !== 'string') return 'not listening';
  const client = typeof m.client === 'string' ? `client ${m.client}` : 'no client';
  const refused =
    typeof m.refused_clients === 'number' && m.refused_clients > 0 ? `; ${m.refused_clients} refused` : '';
  return `listening on ${m.listening}, ${client}${refused}`;
}
