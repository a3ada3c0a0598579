/**
 * The settings forms follow the settings schema itself (declared once, src/settings/schema.ts):
 * this walks the valibot update schema into a small shape tree (objects, arrays, numbers, booleans,
 * strings, choices) that the form renders and reads back. Validation stays with the schema:
 * the page submits what was typed, and the SettingsService answers with its field paths.
 */
import { SettingsUpdateSchema } from '../settings/schema.js';

export type Shape =
  | { readonly k: 'object'; readonly entries: readonly Entry[] }
  | { readonly k: 'array'; readonly item: Shape }
  | { readonly k: 'number' }
  | { readonly k: 'boolean' }
  | { readonly k: 'string' }
  | { readonly k: 'choice'; readonly options: readonly (string | number)[] };

export interface Entry {
  readonly key: string;
  readonly shape: Shape;
  readonly optional: boolean;
}

interface AnySchema {
  readonly kind?: string;
  readonly type: string;
  readonly wrapped?: AnySchema;
  readonly entries?: Record<string, AnySchema>;
  readonly item?: AnySchema;
  readonly options?: readonly (string | number)[];
  readonly pipe?: readonly AnySchema[];
}

export function shapeOf(schema: AnySchema): Shape {
  switch (schema.type) {
    case 'optional':
      return shapeOf(schema.wrapped!);
    case 'object':
    case 'strict_object':
      return {
        k: 'object',
        entries: Object.entries(schema.entries!).map(([key, child]) => ({
          key,
          shape: shapeOf(child),
          optional: child.type === 'optional',
        })),
      };
    case 'array':
      return { k: 'array', item: shapeOf(schema.item!) };
    case 'picklist':
      return { k: 'choice', options: schema.options! };
    case 'number':
      return { k: 'number' };
    case 'boolean':
      return { k: 'boolean' };
    default:
      // obj() is pipe(custom, strictObject); pipe(obj(), transform) nests it once more.
      for (const step of schema.pipe ?? []) {
        if (step.kind === 'schema' && step !== schema && (step.pipe !== undefined || step.type !== 'custom'))
          return shapeOf(step);
      }
      return { k: 'string' };
  }
}

/** The sections of the settings, in the contract's order, each with its shape. */
export function sectionShapes(): readonly Entry[] {
  const root = shapeOf(SettingsUpdateSchema as unknown as AnySchema);
  if (root.k !== 'object') throw new Error('settings schema is not an object');
  return root.entries;
}

/** Fields whose values are secrets: password inputs; left empty they keep the stored value. */
export function isSecret(key: string): boolean {
  return /(password|sqlpass|encryption_key|api_jwt_secret|sim_pin)$/.test(key);
}
