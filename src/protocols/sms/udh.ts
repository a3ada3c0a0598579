/**
 * The user data header of an SMS (3GPP TS 23.040 §9.2.3.24): only the concatenation elements
 * matter to a receiver; every other information element is skipped by its length.
 */

export interface ConcatInfo {
  /** Concatenated short message reference number (8- or 16-bit). */
  readonly ref: number;
  readonly total: number;
  /** 1-based. */
  readonly seq: number;
}

/** `header` is the UDH without its length octet. A malformed concatenation element is ignored. */
export function parseUserDataHeader(header: Uint8Array): { concat: ConcatInfo | null } {
  let concat: ConcatInfo | null = null;
  let i = 0;
  while (i + 2 <= header.length) {
    const iei = header[i]!;
    const len = header[i + 1]!;
    const data = header.subarray(i + 2, i + 2 + len);
    i += 2 + len;
    if (data.length < len) break;
    if (iei === 0x00 && len === 3)
      concat = checked(data[0]!, data[1]!, data[2]!); // §9.2.3.24.1
    else if (iei === 0x08 && len === 4) concat = checked((data[0]! << 8) | data[1]!, data[2]!, data[3]!); // §9.2.3.24.8
  }
  return { concat };
}

/** §9.2.3.24.1: a total or sequence of 0, or a sequence above the total, means "ignore the element". */
function checked(ref: number, total: number, seq: number): ConcatInfo | null {
  if (total === 0 || seq === 0 || seq > total) return null;
  return { ref, total, seq };
}
