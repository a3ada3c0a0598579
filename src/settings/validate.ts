/**
 * validateSettingsUpdate: the whole of PUT /api/settings validation (contract: "every supplied
 * field is validated before any change is applied"). Steps:
 *   1. the body must be a JSON object; masks ("********") are resolved to stored secrets;
 *   2. the patch is checked against SettingsUpdateSchema, collecting ALL issues;
 *   3. the patch is merged into the current settings (merge.ts); a kept MySQL password must be
 *      typed again when the server, user or TLS settings change (database-credentials.ts);
 *   4. the merged result is cross-validated (uniqueness, references, conditionals, license);
 *   5. the outside checks run (PEM files, serial devices, the MySQL connection);
 *   6. only when all passed are new passwords hashed.
 * The answer is the next settings or the sorted error lines; nothing is saved here.
 */
import * as v from 'valibot';
import { crossValidate, type CrossValidateOptions } from './cross-validate.js';
import { checkPasswordReentry } from './database-credentials.js';
import { environmentChecks, type ValidationEnv } from './environment.js';
import { isPlainObject } from './fields.js';
import { fallbackMessage, issueLines, sortLines } from './issues.js';
import { applyPasswords, mergeUpdate, unmaskSecrets } from './merge.js';
import { INTERNAL_EVENT_TYPES, SettingsSchema, SettingsUpdateSchema, type Settings } from './schema.js';
import { nestingProblem } from './nesting.js';

export type ValidationResult = { ok: true; next: Settings } | { ok: false; errors: string[] };

/** abortPipeEarly: one line per field (an out-of-range 1.5 is reported once, as "must be an integer"). */
const PARSE_CONFIG = { abortPipeEarly: true, message: fallbackMessage } as const;

function fail(errors: readonly string[]): { ok: false; errors: string[] } {
  return { ok: false, errors: sortLines(errors) };
}

export async function validateSettingsUpdate(
  current: Settings,
  patch: unknown,
  env: ValidationEnv,
): Promise<ValidationResult> {
  if (!isPlainObject(patch)) return fail(['body: must be a JSON object']);
  const tooDeep = nestingProblem(patch);
  if (tooDeep !== null) return fail([tooDeep]);
  const unmasked = unmaskSecrets(patch, current);
  const parsed = v.safeParse(SettingsUpdateSchema, unmasked.body, PARSE_CONFIG);
  if (!parsed.success) return fail([...unmasked.errors, ...issueLines(parsed.issues)]);

  const merged = mergeUpdate(current, parsed.output);
  const errors = [
    ...unmasked.errors,
    ...merged.errors,
    // Before the outside checks: a database line keeps the connection test from dialling the new host.
    ...checkPasswordReentry(current.database, parsed.output, merged.settings.database),
    ...crossValidate(merged.settings, { maxUsers: env.maxUsers }),
  ];
  errors.push(...(await environmentChecks(merged.settings, parsed.output, errors, env)));
  if (errors.length > 0) return fail(errors);
  return { ok: true, next: await applyPasswords(merged, env.hash) };
}

export type StoredValidationResult = { ok: true; settings: Settings } | { ok: false; errors: string[] };

/**
 * Checks a COMPLETE settings object (what the store loaded, or what the first-start code built):
 * schema with defaults for missing fields (so settings saved by an older version gain new fields),
 * then the cross-field rules. No outside checks: the box may start without its USB adapter.
 */
export function validateStoredSettings(
  raw: unknown,
  options: CrossValidateOptions = { maxUsers: Infinity },
): StoredValidationResult {
  const parsed = v.safeParse(SettingsSchema, withoutNewerKeys(withoutNewerEventTypes(raw)), PARSE_CONFIG);
  if (!parsed.success) return fail(issueLines(parsed.issues));
  const errors = crossValidate(parsed.output, options);
  return errors.length > 0 ? fail(errors) : { ok: true, settings: parsed.output };
}

/**
 * Stored settings written by a newer Vigil can hold sections and fields this build does not know (a box
 * rolled back after an update, docs/store.md "Data across versions" rule 2): they are left out here, so
 * the older build starts on the rest, instead of refusing the whole document. Only keys the schema
 * calls unknown go; a known key with a bad value still fails. An update through the API still refuses
 * an unknown key.
 */
export function withoutNewerKeys(raw: unknown): unknown {
  const first = v.safeParse(SettingsSchema, raw, PARSE_CONFIG);
  if (first.success || !isPlainObject(raw)) return raw;
  const unknown = first.issues
    .filter((issue) => issue.type === 'strict_object' && issue.expected === 'never')
    .map((issue) => (issue.path ?? []).map((item) => (item as { key?: unknown }).key))
    .filter((path) => path.length > 0);
  if (unknown.length === 0) return raw;
  const copy = structuredClone(raw) as Record<string, unknown>;
  for (const path of unknown) {
    let parent: unknown = copy;
    for (const key of path.slice(0, -1))
      parent = (parent as Record<string | number, unknown> | undefined)?.[key as string];
    if (isPlainObject(parent)) delete parent[path.at(-1) as string];
  }
  return copy;
}

/**
 * Stored settings written by a newer Vigil can list internal event types this build does not know (a box
 * rolled back after an update, docs/store.md "Data across versions" rule 2): those entries are left out
 * here, as a newer key is, instead of refusing the whole document and the gateway's start. An update
 * through the API still refuses an unknown type.
 */
export function withoutNewerEventTypes(raw: unknown): unknown {
  if (!isPlainObject(raw) || !Array.isArray(raw.internal_events)) return raw;
  const known: readonly unknown[] = INTERNAL_EVENT_TYPES;
  const entries = raw.internal_events.filter((entry) => !isPlainObject(entry) || known.includes(entry.type));
  return entries.length === raw.internal_events.length ? raw : { ...raw, internal_events: entries };
}
