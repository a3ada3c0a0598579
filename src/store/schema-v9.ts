/**
 * Migration 9: which DC-09 deviations an object's panel showed (docs/dc09.md §12 "Tolerances"), as a
 * bit mask in the order of src/core/dc09-quirks.ts; 0 for a panel that follows the standard. Bits are
 * only ever added: a panel that once sent a binary CRC keeps the mark. One column with a default:
 * older builds ignore it.
 */
export const SCHEMA_V9 = `
ALTER TABLE objects ADD COLUMN dc09_quirks INTEGER NOT NULL DEFAULT 0 CHECK (dc09_quirks >= 0);
`;
