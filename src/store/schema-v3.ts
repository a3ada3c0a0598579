/**
 * Migration 3: state that must survive a restart or a user's deletion.
 *   - user_token_epochs: a user id's token epoch (docs/security.md "Token invalidation"). A password
 *     change or the deletion of the user raises it; login tokens carry the epoch they were issued
 *     under and stop matching. No foreign key to users on purpose: the row must outlive the user,
 *     so a re-created user id never inherits the tokens of the deleted one.
 *   - output_cursors.sequence: the last SIA DC-09 sequence number a DC-09 output used
 *     (docs/dc09.md "Output sequence numbers"), written with the cursor so a restart continues the
 *     count instead of starting again at 0001. 0 = never used.
 */
export const SCHEMA_V3 = `
CREATE TABLE user_token_epochs (
  user_id INTEGER PRIMARY KEY,
  epoch   INTEGER NOT NULL CHECK (epoch >= 0)
);
ALTER TABLE output_cursors ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
`;
