/**
 * The device-link side of one stream session that serves it (TCP) (docs/device-link.md §4): a VL-HELLO is answered by
 * answerHello; a welcome registers the device's object (in the ingest's transaction, so the
 * WELCOME goes out only once the UID is stored) and, right after the WELCOME is written, makes
 * this connection the device's live link. VL-RSP / VL-ACK go to the link's LinkCommander.
 * Link messages never get a DC-09 reply (docs/device-link.md §1).
 */
import { decodeLinkBody } from '../protocols/device-link/codec.js';
import { answerHello } from '../protocols/device-link/hello-handler.js';
import type { LinkCommander } from '../protocols/device-link/link-commander.js';
import type { IngestItem, IngestResult, LinkedDevice, SessionLog } from '../ingest/types.js';
import type { Transport } from './frame-channel.js';
import type { LinkRules, SessionDeps } from './session-deps.js';
import type { ReplySlot } from './reply-queue.js';

/** What the endpoint needs from its session: ordered replies and a place in the next commit. */
export interface LinkSessionPort {
  readonly log: SessionLog;
  enqueue(item: IngestItem, reply: Buffer | null): ReplySlot;
  replyNow(reply: Buffer): void;
}

type HelloState = 'none' | 'pending' | 'linked';

export class LinkEndpoint {
  device: LinkedDevice | null = null;
  private readonly deps: SessionDeps;
  private readonly rules: LinkRules;
  private readonly remoteAddress: string;
  private readonly transport: Transport;
  private readonly send: (frame: Buffer) => boolean;
  private state: HelloState = 'none';
  private pendingKey: Buffer | null = null;
  private pendingUid = '';
  private commander: LinkCommander | null = null;
  private closed = false;

  constructor(deps: SessionDeps, rules: LinkRules, remoteAddress: string, transport: Transport, send: (frame: Buffer) => boolean) {
    this.deps = deps;
    this.rules = rules;
    this.remoteAddress = remoteAddress;
    this.transport = transport;
    this.send = send;
  }

  receive(body: Buffer, now: number, session: LinkSessionPort): void {
    const { counters, logger } = this.deps;
    const rules = this.rules;
    const message = decodeLinkBody(body, rules.key);
    const isHello = 'error' in message ? message.token === 'VL-HELLO' : message.type === 'hello';
    if (isHello) {
      // §4.1.5: a second HELLO on a welcomed (or being welcomed) connection is ignored.
      if (this.state !== 'none') {
        counters.linkIgnored++;
        return;
      }
      const decision = answerHello(message, rules.helloContext(now));
      if (decision.action === 'ignore') {
        counters.linkIgnored++;
        return;
      }
      if (decision.action === 'refuse') {
        logger.info('device link refused', { remote: this.remoteAddress, reason: decision.reason });
        session.replyNow(decision.reply);
        return;
      }
      const hello = decision.hello;
      this.state = 'pending';
      this.pendingKey = decision.sessionKey;
      this.pendingUid = hello.uid;
      session.enqueue(
        {
          kind: 'hello', receiver: rules.ref, transport: this.transport, remoteAddress: this.remoteAddress, receivedAt: now,
          session: session.log, uid: hello.uid, account: hello.account, hwId: hello.hwId, firmware: hello.firmware,
        },
        decision.reply,
      );
      return;
    }
    if ('error' in message) {
      counters.linkIgnored++;
      logger.debug('device-link message dropped', { remote: this.remoteAddress, error: message.error, detail: message.detail });
      return;
    }
    if ((message.type === 'response' || message.type === 'time-ack') && this.commander?.handleMessage(message)) return;
    counters.linkIgnored++;
  }

  /** The HELLO's object is committed: the WELCOME may go out, and the link is attached right after it. */
  welcomed(result: IngestResult, slot: ReplySlot): void {
    if (this.state !== 'pending' || result.objectId === null) return;
    const objectId = result.objectId;
    const uid = result.object?.uid ?? this.pendingUid;
    this.device = { objectId, uid, account: result.object?.account ?? '' };
    this.state = 'linked';
    const key = this.pendingKey;
    slot.after = () => this.attach(objectId, uid, key);
    this.deps.logger.info('device link up', { object_id: objectId, uid, remote: this.remoteAddress, encrypted: key !== null });
  }

  /** The HELLO could not be stored: no WELCOME went out, the device may say HELLO again. */
  helloFailed(): void {
    if (this.state === 'pending') this.state = 'none';
  }

  close(): void {
    this.closed = true;
    const commander = this.commander;
    if (commander && this.device) {
      this.commander = null;
      this.deps.links.detach(this.device.objectId, commander);
      this.deps.counters.links--;
    }
  }

  private attach(objectId: number, uid: string, key: Buffer | null): void {
    if (this.closed) return;
    this.commander = this.deps.links.attach({ objectId, uid, send: this.send, key });
    this.deps.counters.links++;
  }
}
