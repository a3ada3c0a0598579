/**
 * The worked examples of docs/device-link.md §6, shared by the tests so the document and the
 * asserted bytes cannot drift apart. Pad bytes are fixed (all zero -> '!' pad characters).
 */
import type { LinkMessage } from '../../../src/protocols/device-link/messages.js';

export const EXAMPLE_TIME = Date.UTC(2026, 0, 15, 10, 30, 0);
export const EXAMPLE_KEY = Buffer.from('VigilExampleKey1', 'latin1');
export const zeroPad = (n: number): Buffer => Buffer.alloc(n, 0);

export interface Example {
  readonly name: string;
  readonly message: LinkMessage;
  readonly encrypted: boolean;
  /** The whole frame, LF and CR included, as latin1 text. */
  readonly frame: string;
}

export const EXAMPLES: readonly Example[] = [
  {
    name: 'VL-HELLO plain',
    message: {
      type: 'hello',
      seq: 1,
      timestamp: EXAMPLE_TIME,
      version: 1,
      uid: '0123456789ABCDEF',
      hwId: 'VGL-AX1',
      firmware: '2.4.1',
      account: '1234',
    },
    encrypted: false,
    frame: '\n45E2004D"VL-HELLO"0001#1234[V1|U0123456789ABCDEF|HVGL-AX1|F2.4.1]_10:30:00,01-15-2026\r',
  },
  {
    name: 'VL-HELLO encrypted',
    message: {
      type: 'hello',
      seq: 1,
      timestamp: EXAMPLE_TIME,
      version: 1,
      uid: '0123456789ABCDEF',
      hwId: 'VGL-AX1',
      firmware: '2.4.1',
      account: '1234',
    },
    encrypted: true,
    frame:
      '\n0DD00095"*VL-HELLO"0001#1234[83E13DC56AC4D6CAA6A752ED172B11265C373890CB26F64A78E13951C6A9E29C' +
      'D9F749FA4DB2B0C99D809C02045FE44B1F8274584945D90E184F03EB528008D4\r',
  },
  {
    name: 'VL-WELCOME',
    message: { type: 'welcome', seq: 1, timestamp: EXAMPLE_TIME, version: 1 },
    encrypted: false,
    frame: '\n296F0028"VL-WELCOME"0001[V1]_10:30:00,01-15-2026\r',
  },
  {
    name: 'VL-REFUSE',
    message: { type: 'refuse', seq: 1, timestamp: EXAMPLE_TIME, reason: 'TIME' },
    encrypted: false,
    frame: '\nBD35002A"VL-REFUSE"0001[ETIME]_10:30:00,01-15-2026\r',
  },
  {
    name: 'VL-CMD plain with an access code',
    message: {
      type: 'command',
      kind: 'control',
      seq: 42,
      timestamp: EXAMPLE_TIME,
      auth: { mode: 'code', code: '1234' },
      replyWanted: true,
      data: Buffer.from('0102AB', 'hex'),
    },
    encrypted: false,
    frame: '\nC5C40037"VL-CMD"0042[AM31323334|Q1|D0102AB]_10:30:00,01-15-2026\r',
  },
  {
    name: 'VL-CFG encrypted, omit_mpass',
    message: {
      type: 'command',
      kind: 'config',
      seq: 43,
      timestamp: EXAMPLE_TIME,
      auth: { mode: 'omit' },
      replyWanted: false,
      data: Buffer.from('10FF', 'hex'),
    },
    encrypted: true,
    frame:
      '\nAE1C006E"*VL-CFG"0043[98628661129CB2460F90C3E6502B8D5C30175EEF8895C1C46BFADA6430333A30709ED3D5' +
      '242B9617EBD63D49A345D8BE\r',
  },
  {
    name: 'VL-RSP',
    message: {
      type: 'response',
      seq: 42,
      timestamp: null,
      packetNumber: 1,
      packetCount: 2,
      status: 'OK',
      data: Buffer.from('A1B2', 'hex'),
    },
    encrypted: false,
    frame: '\n2621001D"VL-RSP"0042[N1|C2|SOK|DA1B2]\r',
  },
  {
    name: 'VL-TIME',
    message: { type: 'time', seq: 44, timestamp: EXAMPLE_TIME, utcOffsetMinutes: 60 },
    encrypted: false,
    frame: '\n0A0F0027"VL-TIME"0044[Z+60]_10:30:00,01-15-2026\r',
  },
  {
    name: 'VL-ACK',
    message: { type: 'time-ack', seq: 44, timestamp: null },
    encrypted: false,
    frame: '\n97AB000E"VL-ACK"0044[]\r',
  },
];

/** The body of a frame: what Dc09Framer hands on (between the 9-byte header and the CR). */
export function bodyOf(frame: Buffer): Buffer {
  return frame.subarray(9, frame.length - 1);
}
