/**
 * CRC-16/ARC as DC-09 uses it (SIA DC-09 §5.5.1.2, table inherited from SIA DC-07): polynomial x^16+x^15+x^2+1
 * (0x8005) processed LSB first (reflected constant 0xA001), initial value 0, no final XOR.
 * Several public receivers compute CRC-16/CCITT instead; real panels do not, so neither do we.
 */
const TABLE: Uint16Array = buildTable();

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let crc = n;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
    table[n] = crc;
  }
  return table;
}

export function crc16Arc(data: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < data.length; i++) crc = (crc >>> 8) ^ TABLE[(crc ^ data[i]!) & 0xff]!;
  return crc;
}

/** The CRC as the four upper-case hex characters the frame carries. */
export function crcHex(data: Uint8Array): string {
  return crc16Arc(data).toString(16).toUpperCase().padStart(4, '0');
}
