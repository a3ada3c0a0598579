/** Sur-Gard MLR2 / MLR2-DG automation output codec: pure functions, no I/O. See docs/outputs.md. */
export {
  ACK,
  NAK,
  DC4,
  HEARTBEAT,
  heartbeat,
  encodeContactId,
  encodeSiaFixed,
  encodeSiaBlock,
  encodeSia,
  readReplies,
  type CidFields,
  type SiaFields,
  type EncodeResult,
  type Mlr2Route,
  type Mlr2Variant,
  type Mlr2Reply,
} from './codec.js';
export { hexColumn, digitColumn, routeColumns, type FieldResult } from './fields.js';
