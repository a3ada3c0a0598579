/** SIA DC-09 codec: pure functions and classes, no I/O. See docs/dc09.md. */
export { crc16Arc, crcHex } from './crc.js';
export {
  encodeFrame,
  reframe,
  Dc09Framer,
  decodeDatagram,
  MAX_BODY_BYTES,
  type FramerItem,
  type RejectReason,
  type FrameQuirk,
  type FrameTolerances,
  type FrameForm,
} from './frame.js';
export {
  parseKey,
  receiverPasswordKey,
  encryptPayload,
  decryptPayload,
  decryptBlocks,
  type RandomBytes,
} from './crypto.js';
export { parseTimestamp, formatTimestamp, checkWindow, type TimeWindow, type WindowResult } from './timestamp.js';
export {
  parseMessage,
  openMessage,
  openSealed,
  parseTail,
  readRouting,
  TEXT_ACCOUNT_RE,
  type MessageQuirk,
  type MessageTolerances,
  type Dc09Token,
  type ExtendedField,
  type MessageHeader,
  type ParsedMessage,
  type ForeignMessage,
  type ParseFailure,
  type ParseFailureReason,
  type ParseResult,
} from './message.js';
export { parseSiaDcs, type SiaEvent, type SiaDcsData, type SiaDcsResult } from './sia-dcs.js';
export { parseAdmCid, type CidEvent, type CidResult } from './adm-cid.js';
export { classifySia, classifyCid } from './classify.js';
export { buildAck, buildNak, buildDuh, parseReply, type AckOptions, type ParsedReply } from './replies.js';
export { handleFrame, type HandlerContext, type DecodedEvent, type FrameDecision } from './handler.js';
export { buildMessage, type BuildMessageOptions } from './encoder.js';
export { decodeText } from './text.js';
