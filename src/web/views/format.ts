/** Small formatting helpers shared by the views (pure). */

/** "3 d 4 h", "5 min 2 s", "12 s": an age or a duration for humans. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

/** ISO time shown as "2026-11-23 21:52:23 UTC" (the box and the technician may be in different zones). */
export function utc(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function ago(iso: string | number | null | undefined, now: number): string {
  if (iso === null || iso === undefined) return 'never';
  const t = new Date(iso).getTime();
  if (Number.isNaN(t)) return '—';
  return `${duration((now - t) / 1000)} ago`;
}

export function figure(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** "link_tests" -> "link tests", "rssi_dbm" -> "rssi dbm". */
export function label(key: string): string {
  return key.replace(/_/g, ' ');
}
