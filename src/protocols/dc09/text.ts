/**
 * Free text in SIA data and extended data. DC-09 (2021, table of extended data) declares text fields Windows-1252;
 * some panels send UTF-8 instead (Cyrillic site names, for example). Bytes that form valid UTF-8 with at least one
 * multi-byte sequence are read as UTF-8, anything else as Windows-1252.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Windows-1252 0x80..0x9F (the rest equals Latin-1). Mapped here because Node 20's TextDecoder('windows-1252')
 * decodes these bytes as C1 controls.
 */
const CP1252_80_9F =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function fromCp1252(latin1: string): string {
  return latin1.replace(/[\x80-\x9f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!);
}

/** `latin1` is the byte-for-byte string the parser works on. */
export function decodeText(latin1: string): string {
  if (!/[^\x00-\x7f]/.test(latin1)) return latin1;
  try {
    return utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    return fromCp1252(latin1);
  }
}
