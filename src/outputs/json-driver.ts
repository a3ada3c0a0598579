/**
 * The JSON server protocol (type 5, protocol "JSON"; docs/outputs.md §JSON server): newline-delimited JSON, one
 * line per event or heartbeat, and the client answers each line with `{"ack":<the line's id>}`. The event object
 * is the webhook's (webhook-body.ts), so both JSON outputs share one schema. Only an ACK moves the cursor: a
 * completed socket write means only that the kernel buffered the line, so "nothing lost" would not hold without it.
 * ACKs name the line they answer, so a late ACK of an earlier copy can never be taken for the next line's.
 */
import type { OutgoingEvent } from './outbox.js';
import type { Exchange, ProtocolDriver, Verdict } from './protocol-driver.js';
import { WEBHOOK_BODY_VERSION, webhookEvent, type UidOf } from './webhook-body.js';

/** The `ack` value of one client line (a number for events, a string for heartbeats). */
export type JsonReply = { readonly ack: number | string };

/** A client line longer than this without a newline is not an ACK: it is dropped so memory stays bounded. */
const MAX_LINE = 4096;

export interface JsonDriverOptions {
  /** general.instance_name, the `gateway` of every line. */
  readonly gateway: string;
  readonly uidOf: UidOf;
  /** Wall-clock time for heartbeat lines. */
  readonly now: () => number;
}

export class JsonDriver implements ProtocolDriver<JsonReply> {
  readonly protocol = 'JSON';
  readonly supervisionOnlyWhenIdle = true;
  private readonly o: JsonDriverOptions;
  private partial = '';
  private heartbeats = 0;

  constructor(options: JsonDriverOptions) {
    this.o = options;
  }

  read(chunk: Buffer): JsonReply[] {
    const lines = (this.partial + chunk.toString('utf8')).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > MAX_LINE) this.partial = '';
    const out: JsonReply[] = [];
    for (const line of lines) {
      const reply = parseAck(line);
      if (reply) out.push(reply);
    }
    return out;
  }

  event(outgoing: OutgoingEvent): Exchange<JsonReply> {
    const id = outgoing.event.id;
    const line = jsonLine({
      type: 'event',
      id,
      version: WEBHOOK_BODY_VERSION,
      gateway: this.o.gateway,
      event: webhookEvent(outgoing, this.o.uidOf),
    });
    return { label: `event ${id}`, frame: () => line, reply: (r) => answers(r, id) };
  }

  supervision(): Exchange<JsonReply> {
    this.heartbeats++;
    const id = `hb-${this.heartbeats}`;
    return {
      label: 'heartbeat',
      frame: () =>
        jsonLine({
          type: 'heartbeat',
          id,
          version: WEBHOOK_BODY_VERSION,
          gateway: this.o.gateway,
          sent_at: new Date(this.o.now()).toISOString(),
        }),
      reply: (r) => answers(r, id),
    };
  }

  settled(): void {}

  reset(): void {
    this.partial = '';
  }
}

function jsonLine(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

function answers(reply: JsonReply, id: number | string): Verdict {
  return reply.ack === id ? 'ack' : 'ignore';
}

/** `{"ack":48213}` or `{"ack":"hb-3"}` (whitespace and a CR before the newline allowed); anything else is not an ACK. */
function parseAck(line: string): JsonReply | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || !('ack' in value)) return null;
    const ack = (value as { ack: unknown }).ack;
    return typeof ack === 'number' || typeof ack === 'string' ? { ack } : null;
  } catch {
    return null;
  }
}
