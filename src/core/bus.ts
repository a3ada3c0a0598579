/**
 * A typed event bus with isolated listeners: a throwing consumer is logged and cannot
 * break the producer or the other consumers (zigbee2mqtt lib/eventBus.ts).
 */
import type { Logger } from './logger.js';

export type Listener<T> = (payload: T) => void;

export class TypedBus<Events extends { [K in keyof Events]: unknown }> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();
  private readonly logger: Logger;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  on<K extends keyof Events>(event: K, listener: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as Listener<Events[K]>)(payload);
      } catch (err) {
        this.logger.error('listener failed', {
          event: String(event),
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
  }
}
