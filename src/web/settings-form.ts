/**
 * Reads a settings form back into a section value (pure). Input names are the field paths the
 * validation messages use (`receivers.tcp_receivers[1].port`), so each message lands beside the
 * input it names. Rules:
 *   - a number that is not plain digits is sent as typed: the schema answers "must be an integer";
 *   - an empty secret keeps the stored value (left out); an empty optional field of a list item or
 *     nested block is left out; any other empty field is sent as "" for the schema to judge;
 *   - list items: `<path>[i]._remove` drops an item, `<path>[n]._new` marks the blank "add" item,
 *     which is taken only when something was typed into it.
 */
import { isSecret, type Shape } from './settings-shape.js';

export type FormFields = Record<string, string | string[]>;

function first(fields: FormFields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value[value.length - 1] : value;
}

function all(fields: FormFields, name: string): string[] {
  const value = fields[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((v) => v !== '');
}

function numberOrText(text: string): number | string {
  return /^-?\d{1,15}$/.test(text) ? Number(text) : text;
}

function indicesUnder(fields: FormFields, path: string): number[] {
  const found = new Set<number>();
  const prefix = `${path}[`;
  for (const key of Object.keys(fields)) {
    if (!key.startsWith(prefix)) continue;
    const match = /^(\d+)\]/.exec(key.slice(prefix.length));
    if (match) found.add(Number(match[1]));
  }
  return [...found].sort((a, b) => a - b);
}

function anyTyped(fields: FormFields, path: string): boolean {
  return Object.entries(fields).some(
    ([k, v]) =>
      k.startsWith(path) &&
      !k.endsWith('._new') &&
      !k.endsWith('._remove') &&
      (Array.isArray(v) ? v.some((x) => x !== '') : v.trim() !== ''),
  );
}

/** One section's value; its own fields are all optional in an update but shown filled, so an emptied one is sent as "". */
export function readSection(shape: Shape, fields: FormFields, section: string): unknown {
  return readValue(shape, fields, section, section, false, true);
}

export function readValue(
  shape: Shape,
  fields: FormFields,
  path: string,
  key: string,
  omitEmpty: boolean,
  section = false,
): unknown {
  switch (shape.k) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const entry of shape.entries) {
        const value = readValue(entry.shape, fields, `${path}.${entry.key}`, entry.key, entry.optional && !section);
        if (value !== undefined) out[entry.key] = value;
      }
      return omitEmpty && Object.keys(out).length === 0 ? undefined : out;
    }
    case 'array': {
      const item = shape.item;
      if (item.k === 'object') {
        const items: unknown[] = [];
        for (const i of indicesUnder(fields, path)) {
          const at = `${path}[${i}]`;
          if (first(fields, `${at}._remove`) === 'on') continue;
          if (first(fields, `${at}._new`) !== undefined && !anyTyped(fields, `${at}.`)) continue;
          items.push(readValue(item, fields, at, key, false));
        }
        return items;
      }
      if (item.k === 'choice') {
        const numeric = item.options.every((o) => typeof o === 'number');
        return all(fields, path).map((v) => (numeric ? numberOrText(v) : v));
      }
      // A list of numbers (ids) typed as "1, 2, 3".
      const text = first(fields, path);
      if (text === undefined) return undefined;
      return text
        .split(/[\s,]+/)
        .filter((t) => t !== '')
        .map((t) => (item.k === 'number' ? numberOrText(t) : t));
    }
    case 'boolean': {
      const text = first(fields, path);
      return text === 'true' ? true : text === 'false' ? false : undefined;
    }
    case 'choice': {
      const text = first(fields, path);
      if (text === undefined || text === '') return undefined;
      const numeric = shape.options.every((o) => typeof o === 'number');
      return numeric ? numberOrText(text) : text;
    }
    case 'number':
    case 'string': {
      const text = first(fields, path);
      if (text === undefined) return undefined;
      const trimmed = shape.k === 'number' ? text.trim() : text;
      if (trimmed === '' && (isSecret(key) || omitEmpty)) return undefined;
      return shape.k === 'number' ? (trimmed === '' ? '' : numberOrText(trimmed)) : trimmed;
    }
  }
}

/** `path: message` lines keyed by path; the path may be deeper than any input (then shown above the form). */
export function errorsByPath(lines: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of lines) {
    const cut = line.indexOf(': ');
    const path = cut > 0 ? line.slice(0, cut) : 'body';
    const list = out.get(path) ?? [];
    list.push(cut > 0 ? line.slice(cut + 2) : line);
    out.set(path, list);
  }
  return out;
}
