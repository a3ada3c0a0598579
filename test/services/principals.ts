/** Principals for the service unit tests: any scopes, any visible receivers, no token needed. */
import type { Principal } from '../../src/services/principal.js';

export function principal(scopes: string[], visibleReceivers: number[] | null = null, userId = 2): Principal {
  return { subject: `user:${userId}`, userId, scopes: new Set(scopes), visibleReceivers };
}
