/**
 * The status view as terminal text (pure): the same body as GET /api/status and the page's Status
 * view (src/services/status-body.ts), laid out for an 80-column SSH session. Colours only when asked.
 */
import { outputLinkSummary } from './services/output-link.js';
import type { StatusBody, StatusComponent } from './services/status-body.js';

export interface TextOptions {
  readonly color: boolean;
  readonly now: number;
}

const COLORS: Record<string, string> = { ok: '32', degraded: '33', starting: '36', failed: '31', stopped: '31' };

function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${String(Math.floor((s % 86400) / 3600)).padStart(2, '0')}h`;
}

function ago(at: string | number | null | undefined, now: number): string {
  if (at === null || at === undefined) return 'never';
  const t = new Date(at).getTime();
  return Number.isNaN(t) ? '-' : `${duration((now - t) / 1000)} ago`;
}

function figure(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function statusText(status: StatusBody, options: TextOptions): string {
  const paint = (state: string, text = state): string =>
    options.color && COLORS[state] ? `\x1b[${COLORS[state]}m${text}\x1b[0m` : text;
  const all = [...status.receivers, ...status.outputs, ...status.components];
  const overall = all.some((c) => c.state === 'failed' || c.state === 'stopped')
    ? 'failed'
    : all.some((c) => c.state !== 'ok')
      ? 'degraded'
      : 'ok';
  const title = overall === 'ok' ? 'All systems normal' : overall === 'degraded' ? 'Attention needed' : 'Fault';
  const devices = status.receivers.reduce(
    (n, r) => n + (typeof r.metrics.connections === 'number' ? r.metrics.connections : 0),
    0,
  );
  const lines: string[] = [
    `${status.instance_name} · Vigil ${status.version} · up ${duration(status.uptime_s)} · ${new Date(options.now).toISOString().slice(0, 19).replace('T', ' ')} UTC`,
    `${paint(overall, title)} · connected devices ${devices} · store ${paint(status.store.state)}`,
    '',
    'RECEIVERS',
  ];
  if (status.receivers.length === 0) lines.push('  none running');
  else {
    const rows = status.receivers.map((r) => [
      r.name,
      r.state,
      ago(r.since, options.now),
      figure(r.metrics.connections),
      figure(r.metrics.links),
      figure(r.metrics.events),
      figure(r.metrics.rejected),
      figure(r.metrics.listening),
    ]);
    lines.push(
      ...table(['name', 'state', 'since', 'connected', 'links', 'events', 'rejected', 'listening'], rows).map(
        (l, i) => `  ${i === 0 ? l : colorState(l, status.receivers[i - 1]!, paint)}`,
      ),
    );
  }
  lines.push('', 'OUTPUTS');
  if (status.outputs.length === 0) lines.push('  none configured');
  else {
    const rows = status.outputs.map((o) => [
      o.name,
      o.state,
      ago(o.since, options.now),
      outputLinkSummary(o.metrics).replace('—', '-'),
      figure(o.metrics.backlog),
      typeof o.metrics.last_ack_at === 'number' ? ago(o.metrics.last_ack_at, options.now) : 'never',
      figure(o.metrics.delivered),
    ]);
    lines.push(
      ...table(['name', 'state', 'since', 'link', 'backlog', 'last ACK', 'delivered'], rows).map(
        (l, i) => `  ${i === 0 ? l : colorState(l, status.outputs[i - 1]!, paint)}`,
      ),
    );
  }
  lines.push('', 'COMPONENTS');
  for (const c of status.components) {
    lines.push(
      `  ${c.name} (${c.kind}) ${paint(c.state)} since ${ago(c.since, options.now)}${c.detail ? ` · ${c.detail}` : ''}`,
    );
    const figures = Object.entries(c.metrics).map(([k, v]) => `${k}=${figure(v)}`);
    if (figures.length > 0) lines.push(`      ${figures.join('  ')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Colours the state cell of a table row (the state is the second cell, after the padded name). */
function colorState(line: string, component: StatusComponent, paint: (state: string, text?: string) => string): string {
  const at = line.indexOf(component.state, component.name.length);
  return at < 0 ? line : line.slice(0, at) + paint(component.state) + line.slice(at + component.state.length);
}
