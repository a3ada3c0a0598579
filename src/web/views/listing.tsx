/** @jsxImportSource hono/jsx */
/**
 * The parts the two listing views (events, objects) share: the filter form, its receiver field and
 * the pager. The links keep the filters and use the API's cursors (src/web/query.ts listingLinks).
 */
import type { Child } from 'hono/jsx';
import { Field } from './fields.js';

/** A GET form to `action` with the given fields, a submit button and a Clear link back to `action`. */
export function FilterForm(props: { action: string; label: string; submit: string; children?: Child }) {
  return (
    <form method="get" action={props.action} class="filters" aria-label={props.label}>
      {props.children}
      <div class="actions">
        <button type="submit" class="primary">
          {props.submit}
        </button>
        <a class="button" href={props.action}>
          Clear
        </a>
      </div>
    </form>
  );
}

export function ReceiverFilter(props: { value: string | undefined; errors: readonly string[] | undefined }) {
  return (
    <Field
      name="receiver"
      label="Receiver"
      value={props.value}
      errors={props.errors}
      inputmode="numeric"
      placeholder="any"
    />
  );
}

/** Back to the first page (when not on it) and on to older rows (when there are more). */
export function Pager(props: { firstHref: string | null; first: string; olderHref: string | null; end: string }) {
  return (
    <div class="pager">
      {props.firstHref ? <a href={props.firstHref}>← {props.first}</a> : <span></span>}
      {props.olderHref ? (
        <a href={props.olderHref} rel="next">
          Older →
        </a>
      ) : (
        <span class="muted">{props.end}</span>
      )}
    </div>
  );
}
