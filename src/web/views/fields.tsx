/** @jsxImportSource hono/jsx */
/** A labelled input with its validation messages right beside it. */

export interface FieldProps {
  readonly name: string;
  readonly label: string;
  readonly value?: string;
  readonly errors?: readonly string[] | undefined;
  readonly type?: string;
  readonly placeholder?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly autocomplete?: string;
  readonly inputmode?: 'text' | 'numeric' | 'decimal';
}

export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function Field(props: FieldProps) {
  const id = fieldId(props.name);
  const invalid = props.errors !== undefined && props.errors.length > 0;
  return (
    <label for={id}>
      {props.label}
      {props.hint && <span class="hint">{props.hint}</span>}
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        placeholder={props.placeholder}
        required={props.required}
        autocomplete={props.autocomplete ?? 'off'}
        inputmode={props.inputmode}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={invalid ? `${id}-error` : undefined}
      />
      {invalid && (
        <p class="field-error" id={`${id}-error`} data-error-for={props.name}>
          {props.errors!.join('; ')}
        </p>
      )}
    </label>
  );
}
