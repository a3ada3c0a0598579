/**
 * Which receiver a health component belongs to, and whether a caller limited to some receivers may
 * see it (docs/web.md §Visibility): the status view, the services and the metrics all ask here. A
 * component belongs to a receiver when its name is `rx:<kind>:<id>` (or starts with `rx:<kind>:<id>:`)
 * or its figures carry a numeric `receiver_id`.
 */
import type { ComponentHealth } from './health.js';

/** The receiver id a component belongs to, or null when it belongs to none. */
export function receiverOf(component: Pick<ComponentHealth, 'name' | 'metrics'>): number | null {
  const match = /^rx:[a-z0-9_-]+:(\d+)(?::|$)/i.exec(component.name);
  if (match) return Number(match[1]);
  const id = component.metrics.receiver_id;
  return typeof id === 'number' ? id : null;
}

export function visibleComponent(
  component: Pick<ComponentHealth, 'name' | 'kind' | 'metrics'>,
  visibleReceivers: readonly number[] | null,
): boolean {
  if (visibleReceivers === null) return true;
  const receiver = receiverOf(component);
  if (receiver === null) return component.kind !== 'receiver' && !component.name.startsWith('rx:');
  return visibleReceivers.includes(receiver);
}
