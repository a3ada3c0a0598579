/**
 * Keeps the numbers a modem receiver learned from encrypted SMS (KnownCallers) across restarts, as one JSON value per
 * receiver in the store's `meta` table (key `modem_callers:<receiver id>`). The objects' `remote_address` is not used:
 * every SMS writes it, plain ones included, and a plain SMS proves nothing about its sender (docs/modem.md §Test calls).
 */
import type { LearnedCallers } from './known-callers.js';
import type { LearnedCallerStore } from './modem-receiver.js';

/** The slice of the store's meta table this needs: the read, and the write as a command to the one writer. */
export interface MetaPort {
  get(key: string): string | null;
  set(key: string, value: string): Promise<void>;
}

export function learnedCallersKey(receiverId: number): string {
  return `modem_callers:${receiverId}`;
}

export function metaCallerStore(meta: () => MetaPort, receiverId: number): LearnedCallerStore {
  const key = learnedCallersKey(receiverId);
  return {
    load(): unknown {
      const text = meta().get(key);
      return text === null ? {} : JSON.parse(text);
    },
    save(learned: LearnedCallers): Promise<void> {
      return meta().set(key, JSON.stringify(learned));
    },
  };
}
