/**
 * Filter forms submit every field, empty ones included; for the page an empty field means "no
 * filter". The remaining parameters (`params`) go to the same service as the API's
 * (src/services/events-service.ts, objects-service.ts), so the page accepts and refuses exactly
 * what the API does, with the same messages; `raw` refills the form.
 */
import { DATABASE_NOT_READY } from '../services/principal.js';
import { parseQuery, type ParamParser, type QueryResult } from '../services/query-params.js';

/** The non-empty parameters of a page URL, trimmed. */
export function pageParams(url: string): { params: URLSearchParams; raw: Record<string, string> } {
  const kept = new URLSearchParams();
  const raw: Record<string, string> = {};
  for (const [key, value] of new URL(url).searchParams) {
    if (value.trim() === '') continue;
    kept.append(key, value.trim());
    raw[key] = value.trim();
  }
  return { params: kept, raw };
}

export function pageQuery<P extends Record<string, ParamParser<unknown>>>(
  url: string,
  parsers: P,
): {
  result: QueryResult<P>;
  raw: Record<string, string>;
} {
  const { params, raw } = pageParams(url);
  return { result: parseQuery(params, parsers), raw };
}

/** `param: reason` lines keyed by the parameter they name. */
export function errorsByParam(lines: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of lines) {
    const cut = line.indexOf(': ');
    const key = cut > 0 ? line.slice(0, cut) : '';
    (out[key] ??= []).push(cut > 0 ? line.slice(cut + 2) : line);
  }
  return out;
}

/** A query string of the non-empty values, for links (pager) and the live stream. */
export function queryString(values: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The filters of a listing page the caller filled in: they refill the form and stay in the pager's links. */
export function filledFilters(raw: Record<string, string>, keys: readonly string[]): Record<string, string> {
  return Object.fromEntries(keys.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]!]));
}

/** A listing page's links: on to older rows (when there are more), back to the first page (when not on it). */
export function listingLinks(
  path: string,
  filters: Record<string, string>,
  next: string | null,
  onFirstPage: boolean,
): { olderHref: string | null; firstHref: string | null } {
  return {
    olderHref: next === null ? null : `${path}${queryString({ ...filters, cursor: next })}`,
    firstHref: onFirstPage ? null : `${path}${queryString(filters)}`,
  };
}

/**
 * A listing service's refusal as the page shows it: 400 with each line beside the parameter it names,
 * or 503 with `Database is not ready` beside `field`.
 */
export function listingProblem(
  outcome: { readonly kind: 'invalid'; readonly errors: readonly string[] } | { readonly kind: 'not-ready' },
  field: string,
): { errors: Record<string, string[]>; status: 400 | 503 } {
  return outcome.kind === 'invalid'
    ? { errors: errorsByParam(outcome.errors), status: 400 }
    : { errors: { [field]: [DATABASE_NOT_READY] }, status: 503 };
}
