/**
 * Keeps the samples of a Prometheus text exposition (format 0.0.4) whose labels a predicate
 * accepts. Pure: no registry, no I/O. Comment lines (`# HELP`, `# TYPE`) and blank lines are kept,
 * so every family stays declared even when none of its samples is left (valid for Prometheus).
 *
 * Sample line: `name{label="value",...} value [timestamp]`; label values escape `\`, `"` and LF as
 * `\\`, `\"`, `\n` (exposition format §"Line format").
 */

export type LabelPredicate = (labels: Readonly<Record<string, string>>) => boolean;

const LABEL_NAME = /[a-zA-Z_][a-zA-Z0-9_]*/y;

/** The labels of one sample line, or null when the line does not parse (it is then dropped). */
export function sampleLabels(line: string): Record<string, string> | null {
  const open = line.indexOf('{');
  const space = line.indexOf(' ');
  if (open === -1 || (space !== -1 && space < open)) return {};
  const labels: Record<string, string> = {};
  let i = open + 1;
  while (i < line.length) {
    if (line[i] === '}') return labels;
    LABEL_NAME.lastIndex = i;
    const name = LABEL_NAME.exec(line);
    if (!name || line[i + name[0].length] !== '=' || line[i + name[0].length + 1] !== '"') return null;
    i += name[0].length + 2;
    let value = '';
    for (;;) {
      const ch = line[i];
      if (ch === undefined) return null;
      if (ch === '"') break;
      if (ch === '\\') {
        const next = line[i + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        i += 2;
      } else {
        value += ch;
        i += 1;
      }
    }
    labels[name[0]] = value;
    i += 1;
    if (line[i] === ',') i += 1;
  }
  return null;
}

export function filterExposition(text: string, keep: LabelPredicate): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) {
      out.push(line);
      continue;
    }
    const labels = sampleLabels(line);
    // A line that does not parse is dropped: the filter fails closed.
    if (labels !== null && keep(labels)) out.push(line);
  }
  return out.join('\n');
}
