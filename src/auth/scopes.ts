/**
 * Every scope a token may carry, declared once. A user record holds only USER_SCOPES (management
 * API §Resources, users); the rest are grants (docs/security.md) or minted by `vigil token`.
 * `metrics` reads GET /metrics (docs/metrics.md); `system_update` reaches /api/system* and the System
 * view (docs/backup.md): it downloads every secret of the box, so it is a grant, never a record scope.
 */
/** The scopes a user record holds (settings `users[].scopes`, management API §Resources, users). */
export const USER_SCOPES = ['settings', 'users', 'events', 'objects'] as const;

/** The scopes that can only be granted, never written into a user record; canonical order. */
export const GRANTABLE_SCOPES = [
  'device_control',
  'omit_mpass',
  'restart_services',
  'metrics',
  'system_update',
] as const;

export const ALL_SCOPES = [...USER_SCOPES, ...GRANTABLE_SCOPES] as const;
