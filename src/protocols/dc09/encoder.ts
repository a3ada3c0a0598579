/**
 * Transmitter side: builds a complete DC-09 frame (SIA DC-09 §5.5.1) for the simulator, the tests and Vigil's own
 * DC-09 output. Encrypted when a key is given (§5.4.6): the data, extended data and timestamp go inside the
 * encrypted part; the standard requires the timestamp then, so pass one.
 */
import { VigilError } from '../../core/errors.js';
import { encryptPayload, type RandomBytes } from './crypto.js';
import { encodeFrame } from './frame.js';
import type { Dc09Token, ExtendedField } from './message.js';
import { formatTimestamp } from './timestamp.js';

export interface BuildMessageOptions {
  token: Dc09Token;
  /** 0..9999; the transmitter counts 0001..9999 and wraps to 0001 (§5.5.1.5). */
  sequence: number | string;
  /** Number (written as upper-case hex) or hex text used verbatim. */
  receiver?: number | string;
  line?: number | string;
  account: string;
  /** The data block without brackets, e.g. "#1234|Nri1/BA01" or "#1234|1401 01 015"; "" for NULL. */
  data: string;
  extended?: ExtendedField[];
  /** ms since the epoch, written as UTC; null or absent for no timestamp. */
  timestamp?: number | null;
  key?: Buffer | null;
  randomBytes?: RandomBytes;
}

const HEX_FIELD_RE = /^[0-9A-Fa-f]{1,6}$/;

function hexField(name: string, value: number | string): string {
  const text = typeof value === 'number' ? value.toString(16).toUpperCase() : value;
  if (!HEX_FIELD_RE.test(text)) throw new VigilError('FRAME_INVALID', `${name} must be 1-6 hex digits`, [text]);
  return text;
}

function sequenceField(value: number | string): string {
  const text = typeof value === 'number' ? String(value).padStart(4, '0') : value;
  if (!/^\d{4}$/.test(text)) throw new VigilError('FRAME_INVALID', 'sequence must be 0..9999', [String(value)]);
  return text;
}

export function buildMessage(o: BuildMessageOptions): Buffer {
  if (!/^[0-9A-Fa-f]{3,16}$/.test(o.account)) throw new VigilError('FRAME_INVALID', 'account must be 3-16 hex digits');
  if (/[[\]\r\n]/.test(o.data)) throw new VigilError('FRAME_INVALID', 'data must not contain "[", "]", CR or LF');
  let head = `${sequenceField(o.sequence)}`;
  if (o.receiver !== undefined) head += `R${hexField('receiver', o.receiver)}`;
  if (o.line !== undefined) head += `L${hexField('line', o.line)}`;
  head += `#${o.account}`;
  const extended = (o.extended ?? []).map((f) => {
    if (/[[\]\r\n]/.test(f.value) || f.id.length !== 1)
      throw new VigilError('FRAME_INVALID', 'bad extended data field', [f.id]);
    return `[${f.id}${f.value}]`;
  });
  const stamp = o.timestamp === undefined || o.timestamp === null ? '' : `_${formatTimestamp(o.timestamp)}`;
  const inside = `${o.data}]${extended.join('')}${stamp}`;
  if (o.key) return encodeFrame(`"*${o.token}"${head}[${encryptPayload(inside, o.key, o.randomBytes)}`);
  return encodeFrame(`"${o.token}"${head}[${inside}`);
}
