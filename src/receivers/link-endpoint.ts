/**
 * The device-link side of one stream session that serves it (TCP) (docs/device-link.md §4): a
 * VL-HELLO is challenged (answerHello), the VL-PROOF checked (answerProof); only a proven device
 * registers its object (in the ingest's transaction, so the WELCOME goes out only once the UID is
 * stored) and, right after the WELCOME is written, makes this connection its live link. A HELLO or
 * proof that fails never reaches the store or the link registry: it is refused, and an identity
 * conflict is reported. VL-RSP / VL-ACK go to the link's LinkCommander.
 * A stranger can HELLO as often as it likes, and every HELLO reads the store: HELLOs take their share
 * of the admission budget per source, and an enrolment (trust on first use stores a key and creates
 * an object) its own, per source and in total (docs/security.md "Admission"). Over either, the HELLO
 * is dropped unanswered or the enrolment refused `AUTH` (the device retries after 60 s, §3.2).
 * Link messages never get a DC-09 reply (docs/device-link.md §1).
 */
import { describeError } from '../core/errors.js';
import { decodeLinkBody, encodeRefuse, type SessionKey } from '../protocols/device-link/codec.js';
import { answerHello, answerProof, type PendingHello } from '../protocols/device-link/hello-handler.js';
import type { LinkCommander } from '../protocols/device-link/link-commander.js';
import type { IdentityConflictReason } from '../protocols/device-link/hello-handler.js';
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

/** none -> challenged (VL-CHAL sent) -> pending (proof good, HELLO being stored) -> linked. */
type HelloState = 'none' | 'challenged' | 'pending' | 'linked';

export class LinkEndpoint {
  device: LinkedDevice | null = null;
  private readonly deps: SessionDeps;
  private readonly rules: LinkRules;
  private readonly remoteAddress: string;
  /** The admission's source key of the peer; absent where nothing is admitted (tests of the link alone). */
  private readonly source: string | undefined;
  private readonly transport: Transport;
  private readonly send: (frame: Buffer) => boolean;
  private state: HelloState = 'none';
  private challenge: PendingHello | null = null;
  private sessionKey: SessionKey | null = null;
  private enrolledKey: Buffer | null = null;
  private pendingUid = '';
  private commander: LinkCommander | null = null;
  private closed = false;

  constructor(
    deps: SessionDeps,
    rules: LinkRules,
    remoteAddress: string,
    transport: Transport,
    send: (frame: Buffer) => boolean,
    source?: string,
  ) {
    this.deps = deps;
    this.rules = rules;
    this.remoteAddress = remoteAddress;
    this.source = source;
    this.transport = transport;
    this.send = send;
  }

  receive(body: Buffer, now: number, session: LinkSessionPort): void {
    const { counters, logger } = this.deps;
    // A welcomed link speaks the session envelope only; before that, the receiver's key (or plain).
    const message = decodeLinkBody(body, this.state === 'linked' ? this.sessionKey : this.rules.key);
    const token = 'error' in message ? message.token : undefined;
    const type = 'error' in message ? undefined : message.type;
    if (token === 'VL-HELLO' || type === 'hello') {
      // A challenge whose proof never came does not block a new handshake (the proof is then refused late).
      if (this.state === 'challenged' && now > this.challenge!.expiresAt) this.dropChallenge();
      // §4.1: a second HELLO on a connection that is past its first is ignored.
      if (this.state !== 'none') {
        counters.linkIgnored++;
        return;
      }
      this.hello(message, now, session);
      return;
    }
    if (token === 'VL-PROOF' || type === 'proof') {
      if (this.state !== 'challenged') {
        counters.linkIgnored++;
        return;
      }
      this.proof(message, now, session);
      return;
    }
    if ('error' in message) {
      counters.linkIgnored++;
      logger.debug('device-link message dropped', {
        remote: this.remoteAddress,
        error: message.error,
        detail: message.detail,
      });
      return;
    }
    if ((message.type === 'response' || message.type === 'time-ack') && this.commander?.handleMessage(message)) return;
    counters.linkIgnored++;
  }

  /**
   * The HELLO's object is committed: the enrolled key is stored, the WELCOME may go out, the link attaches right
   * after it. Null when `slot` is filled now; else the key is being stored (a command to the store's one writer)
   * and `slot` is filled when the returned promise resolves (it never rejects).
   */
  welcomed(result: IngestResult, slot: ReplySlot): Promise<void> | null {
    if (this.state !== 'pending' || result.objectId === null) return null;
    const objectId = result.objectId;
    const uid = result.object?.uid ?? this.pendingUid;
    const key = this.enrolledKey;
    if (!key) {
      this.link(objectId, uid, result, slot);
      return null;
    }
    // Two connections enrolling one UID at once: the first stored wins, the other is refused.
    if (this.deps.links.keys.state(uid, this.deps.clock.now(), this.rules.enrolment).key !== null) {
      this.refused('AUTH', { uid, reason: 'already_enrolled' });
      slot.reply = encodeRefuse({ seq: this.challengeSeq(), timestamp: this.deps.clock.now(), reason: 'AUTH' });
      this.reset();
      return null;
    }
    return this.deps.links.keys.enrol(uid, key).then(
      () => {
        this.deps.logger.info('device enrolled on the link', { uid, remote: this.remoteAddress });
        if (this.state === 'pending') this.link(objectId, uid, result, slot);
      },
      (err: unknown) => {
        // Without the stored key the device could never prove itself: no WELCOME, it enrols again.
        this.deps.logger.error('device key not stored; enrolment refused', { uid, error: describeError(err) });
        slot.reply = encodeRefuse({ seq: this.challengeSeq(), timestamp: this.deps.clock.now(), reason: 'AUTH' });
        this.reset();
      },
    );
  }

  private link(objectId: number, uid: string, result: IngestResult, slot: ReplySlot): void {
    this.enrolledKey = null;
    this.challenge = null;
    this.device = { objectId, uid, account: result.object?.account ?? '' };
    this.state = 'linked';
    const key = this.sessionKey!;
    slot.after = () => this.attach(objectId, uid, key);
    this.deps.logger.info('device link up', { object_id: objectId, uid, remote: this.remoteAddress });
  }

  /** The HELLO could not be stored: no WELCOME went out, the device may say HELLO again. */
  helloFailed(): void {
    if (this.state === 'pending') this.reset();
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

  private hello(message: Parameters<typeof answerHello>[0], now: number, session: LinkSessionPort): void {
    const rules = this.rules;
    const keys = this.deps.links.keys;
    const { admission } = this.deps;
    if (admission && this.source !== undefined && !admission.hellos.take(this.source)) {
      this.deps.counters.linkIgnored++;
      return;
    }
    const account = 'error' in message || message.type !== 'hello' ? '' : (message.account ?? '');
    const decision = answerHello(
      message,
      rules.helloContext(now, (uid) => keys.state(uid, now, rules.enrolment, { account, receiverId: rules.ref.id })),
    );
    if (decision.action === 'ignore') {
      this.deps.counters.linkIgnored++;
      return;
    }
    if (decision.action === 'refuse') {
      this.refused(decision.reason, decision.conflict);
      session.replyNow(decision.reply);
      return;
    }
    this.state = 'challenged';
    this.challenge = decision.pending;
    session.replyNow(decision.reply);
  }

  private proof(message: Parameters<typeof answerProof>[0], now: number, session: LinkSessionPort): void {
    const decision = answerProof(message, this.challenge!, now);
    if (decision.action === 'ignore') {
      this.deps.counters.linkIgnored++;
      return;
    }
    if (decision.action === 'refuse') {
      this.refused(decision.reason, decision.conflict);
      this.dropChallenge();
      session.replyNow(decision.reply);
      return;
    }
    const { admission } = this.deps;
    if (decision.enrolledKey && admission && this.source !== undefined && !admission.enrolments.take(this.source)) {
      // Over the enrolment allowance: the device retries after 60 s (REFUSE AUTH, docs/device-link.md §3.2).
      this.deps.logger.info('device enrolment refused: allowance spent', { remote: this.remoteAddress });
      const seq = this.challengeSeq();
      this.dropChallenge();
      session.replyNow(encodeRefuse({ seq, timestamp: now, reason: 'AUTH' }));
      return;
    }
    const hello = decision.hello;
    this.state = 'pending';
    this.sessionKey = decision.sessionKey;
    this.enrolledKey = decision.enrolledKey;
    this.pendingUid = hello.uid;
    session.enqueue(
      {
        kind: 'hello',
        receiver: this.rules.ref,
        transport: this.transport,
        remoteAddress: this.remoteAddress,
        receivedAt: now,
        session: session.log,
        uid: hello.uid,
        account: hello.account,
        hwId: hello.hwId,
        firmware: hello.firmware,
        // Enrolled now: the main thread allowed it with the panel's account free or an installer's window.
        adopt: decision.enrolledKey !== null,
      },
      decision.reply,
    );
  }

  private refused(reason: string, conflict: { uid: string; reason: IdentityConflictReason } | undefined): void {
    this.deps.logger.info('device link refused', {
      remote: this.remoteAddress,
      reason,
      ...(conflict ? { uid: conflict.uid } : {}),
    });
    if (conflict)
      this.deps.links.reportConflict({ ...conflict, remote: this.remoteAddress, receiverId: this.rules.ref.id });
  }

  private challengeSeq(): number {
    return this.challenge?.hello.seq ?? 0;
  }

  private dropChallenge(): void {
    this.challenge = null;
    this.state = 'none';
  }

  private reset(): void {
    this.state = 'none';
    this.challenge = null;
    this.sessionKey = null;
    this.enrolledKey = null;
  }

  private attach(objectId: number, uid: string, key: SessionKey): void {
    if (this.closed) return;
    this.commander = this.deps.links.attach({
      objectId,
      uid,
      send: this.send,
      key,
      remote: this.remoteAddress,
      receiverId: this.rules.ref.id,
    });
    this.deps.counters.links++;
  }
}
