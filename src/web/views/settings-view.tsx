/** @jsxImportSource hono/jsx */
/**
 * One settings section as a form generated from the schema's shape (src/web/settings-shape.ts).
 * Every input is named by its field path; a validation message for that path is rendered right
 * after the input, messages for a whole list item beside the item, and the full list on top.
 */
import type { Child } from 'hono/jsx';
import { CSRF_FIELD } from '../session.js';
import { isSecret, type Entry, type Shape } from '../settings-shape.js';
import { fieldId } from './fields.js';
import { label } from './format.js';

export interface SettingsViewProps {
  readonly sections: readonly string[];
  readonly section: string;
  readonly shape: Shape;
  readonly value: unknown;
  readonly errors: ReadonlyMap<string, string[]>;
  readonly notice: { ok: boolean; text: string } | null;
  readonly csrf: string;
}

type Errors = ReadonlyMap<string, string[]>;

function ErrorText(props: { path: string; errors: Errors }) {
  const messages = props.errors.get(props.path);
  if (!messages) return null;
  return (
    <p class="field-error" id={`${fieldId(props.path)}-error`} data-error-for={props.path}>
      {messages.join('; ')}
    </p>
  );
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join(', ');
  return String(value);
}

function Scalar(props: {
  path: string;
  name: string;
  shape: Shape;
  value: unknown;
  optional: boolean;
  errors: Errors;
}) {
  const { path, shape, value } = props;
  const id = fieldId(path);
  const invalid = props.errors.has(path);
  const common = {
    id,
    name: path,
    'aria-invalid': invalid ? 'true' : undefined,
    'aria-describedby': invalid ? `${id}-error` : undefined,
  };
  let input: Child;
  if (shape.k === 'boolean') {
    input = (
      <select {...common}>
        {props.optional && value === undefined && <option value="">(default)</option>}
        <option value="true" selected={value === true}>
          yes
        </option>
        <option value="false" selected={value === false}>
          no
        </option>
      </select>
    );
  } else if (shape.k === 'choice') {
    input = (
      <select {...common}>
        {(props.optional || value === undefined) && (
          <option value="">{props.optional ? '(default)' : '(choose)'}</option>
        )}
        {shape.options.map((o) => (
          <option value={String(o)} selected={String(o) === text(value)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  } else if (shape.k === 'array' && shape.item.k === 'choice') {
    const chosen = Array.isArray(value) ? value.map(String) : [];
    input = (
      <span class="choices" id={id}>
        <input type="hidden" name={path} value="" />
        {shape.item.options.map((o) => (
          <label class="check">
            <input type="checkbox" name={path} value={String(o)} checked={chosen.includes(String(o))} /> {String(o)}
          </label>
        ))}
      </span>
    );
  } else {
    const secret = isSecret(props.name);
    input = (
      <input
        {...common}
        type={secret ? 'password' : 'text'}
        value={text(value)}
        inputmode={shape.k === 'number' ? 'numeric' : undefined}
        autocomplete={secret ? 'new-password' : 'off'}
        placeholder={
          secret
            ? props.name === 'password'
              ? 'unchanged'
              : 'not set'
            : shape.k === 'array'
              ? 'comma separated'
              : undefined
        }
      />
    );
  }
  return (
    <label for={id} class={shape.k === 'array' && shape.item.k === 'choice' ? 'wide' : undefined}>
      {label(props.name)}
      {input}
      <ErrorText path={path} errors={props.errors} />
    </label>
  );
}

function Fields(props: { entries: readonly Entry[]; path: string; value: Record<string, unknown>; errors: Errors }) {
  const scalars = props.entries.filter(
    (e) => !(e.shape.k === 'object' || (e.shape.k === 'array' && e.shape.item.k === 'object')),
  );
  const blocks = props.entries.filter((e) => !scalars.includes(e));
  return (
    <>
      {scalars.length > 0 && (
        <div class="form-grid">
          {scalars.map((e) => (
            <Scalar
              path={`${props.path}.${e.key}`}
              name={e.key}
              shape={e.shape}
              value={props.value[e.key]}
              optional={e.optional}
              errors={props.errors}
            />
          ))}
        </div>
      )}
      {blocks.map((e) => (
        <Block entry={e} path={`${props.path}.${e.key}`} value={props.value[e.key]} errors={props.errors} />
      ))}
    </>
  );
}

function Item(props: {
  shape: Extract<Shape, { k: 'object' }>;
  path: string;
  index: number;
  value: Record<string, unknown>;
  errors: Errors;
  fresh: boolean;
}) {
  const at = `${props.path}[${props.index}]`;
  const title =
    typeof props.value.name === 'string'
      ? props.value.name
      : typeof props.value.login === 'string'
        ? props.value.login
        : typeof props.value.type === 'string'
          ? props.value.type
          : '';
  const hasError = [...props.errors.keys()].some((k) => k === at || k.startsWith(`${at}.`));
  return (
    <fieldset class={hasError ? 'item has-error' : 'item'} data-path={at}>
      <legend>{props.fresh ? 'New entry' : `#${props.index + 1}${title ? ` ${title}` : ''}`}</legend>
      {props.fresh ? (
        <input type="hidden" name={`${at}._new`} value="1" />
      ) : (
        <label class="check remove">
          <input type="checkbox" name={`${at}._remove`} /> remove this entry
        </label>
      )}
      <ErrorText path={at} errors={props.errors} />
      <Fields entries={props.shape.entries} path={at} value={props.value} errors={props.errors} />
    </fieldset>
  );
}

function Block(props: { entry: Entry; path: string; value: unknown; errors: Errors }) {
  const { entry, path } = props;
  if (entry.shape.k === 'object') {
    return (
      <fieldset data-path={path}>
        <legend>{label(entry.key)}</legend>
        <ErrorText path={path} errors={props.errors} />
        <Fields
          entries={entry.shape.entries}
          path={path}
          value={(props.value ?? {}) as Record<string, unknown>}
          errors={props.errors}
        />
      </fieldset>
    );
  }
  const item = (entry.shape as Extract<Shape, { k: 'array' }>).item as Extract<Shape, { k: 'object' }>;
  const items = Array.isArray(props.value) ? (props.value as Record<string, unknown>[]) : [];
  return (
    <section class="list" data-path={path}>
      <h3>
        {label(entry.key)} ({items.length})
      </h3>
      <ErrorText path={path} errors={props.errors} />
      {items.length === 0 && <p class="empty">None.</p>}
      {items.map((v, i) => (
        <Item shape={item} path={path} index={i} value={v ?? {}} errors={props.errors} fresh={false} />
      ))}
      <details class="add">
        <summary>Add an entry to {label(entry.key)}</summary>
        <Item shape={item} path={path} index={items.length} value={{}} errors={props.errors} fresh={true} />
      </details>
    </section>
  );
}

export function SettingsView(props: SettingsViewProps) {
  const lines = [...props.errors].flatMap(([path, messages]) => messages.map((m) => `${path}: ${m}`));
  const rootEntry: Entry = { key: props.section, shape: props.shape, optional: true };
  return (
    <div>
      <nav class="section-nav" aria-label="Settings sections">
        {props.sections.map((s) => (
          <a href={`/settings/${s}`} class={s === props.section ? 'active' : ''}>
            {label(s)}
          </a>
        ))}
      </nav>
      <section class="card">
        <h2>{label(props.section)}</h2>
        {props.notice && (
          <p class={props.notice.ok ? 'alert ok' : 'alert error'} role="status">
            {props.notice.text}
          </p>
        )}
        {lines.length > 0 && (
          <div class="alert error" role="alert" id="settings-errors">
            Nothing was saved. Fix these fields:
            <ul>
              {lines.map((l) => (
                <li>{l}</li>
              ))}
            </ul>
          </div>
        )}
        <form method="post" action={`/settings/${props.section}`} class="stack settings-form">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          {props.shape.k === 'object' ? (
            <Fields
              entries={props.shape.entries}
              path={props.section}
              value={(props.value ?? {}) as Record<string, unknown>}
              errors={props.errors}
            />
          ) : (
            <Block entry={rootEntry} path={props.section} value={props.value} errors={props.errors} />
          )}
          <div>
            <button type="submit" class="primary">
              Save {label(props.section)}
            </button>
          </div>
        </form>
      </section>
    </div>
  );
}
