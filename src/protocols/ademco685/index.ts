/** Ademco 685 automation output codec: pure functions, no I/O. See docs/outputs.md §Ademco 685. */
export {
  ACK,
  NAK,
  LF,
  CR,
  OKAY,
  encodeEvent,
  readAdemco685Replies,
  type Ademco685Event,
  type Ademco685Reply,
  type Ademco685Route,
} from './codec.js';
export { siaToContactId, type CidEquivalent } from './sia-to-cid.js';
export { isUserCode } from './user-codes.js';
