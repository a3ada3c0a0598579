/**
 * Free text in SIA data and extended data. DC-09 (2021, Table of extended data) declares text fields Windows-1252;
 * some panels send UTF-8 instead (Cyrillic site names, for example). Bytes that form valid UTF-8 with at least one
 * multi-byte sequence are read as UTF-8, anything else as Windows-1252.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true });
const win1252 = new TextDecoder('windows-1252');

/** `latin1` is the byte-for-byte string the parser works on. */
export function decodeText(latin1: string): string {
  if (!/[^\x00-\x7f]/.test(latin1)) return latin1;
  const bytes = Buffer.from(latin1, 'latin1');
  try {
    return utf8.decode(bytes);
  } catch {
    return win1252.decode(bytes);
  }
}
