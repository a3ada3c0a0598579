/**
 * Migration 7: tokens ended by logout before their expiry (docs/security.md "Logout"). One row
 * per revoked token id (`jti`), kept until the token would have expired anyway, then pruned
 * (revoked-tokens-repo.ts). `user_id` is null for an installer token. Older code ignores the table.
 */
export const SCHEMA_V7 = `
CREATE TABLE revoked_tokens (
  jti        TEXT PRIMARY KEY CHECK (length(jti) BETWEEN 1 AND 64),
  user_id    INTEGER,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at);
CREATE INDEX revoked_tokens_user ON revoked_tokens (user_id);
`;
