/**
 * A small Server-Sent Events client for tests: fetch plus a parser of the event stream format
 * (WHATWG HTML §9.2.6 "Interpreting an event stream"): lines end in CRLF, LF or CR; a line that
 * starts with ":" is a comment; `event`, `data` (joined with LF), `id` and `retry` fields; a blank
 * line dispatches. Comments are kept too, so tests can see the heartbeats.
 */
export interface SseMessage {
  /** `message` when the server named none; `comment` for a ":" line (its text in data). */
  readonly event: string;
  readonly data: string;
  /** The message's `id` field, or null when it had none. */
  readonly id: string | null;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | null = null;
  /** The last event id seen (what a client sends as Last-Event-ID when it reconnects). */
  lastEventId = '';

  /** Feeds decoded text; returns the messages it completed. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (end < 0 || (this.buffer[end] === '\r' && end === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      if (this.data.length === 0 && this.event === '') {
        this.id = null;
        return null;
      }
      const message = { event: this.event || 'message', data: this.data.join('\n'), id: this.id };
      this.event = '';
      this.data = [];
      this.id = null;
      return message;
    }
    if (line.startsWith(':')) return { event: 'comment', data: line.slice(1).trimStart(), id: null };
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) {
      this.id = value;
      this.lastEventId = value;
    }
    return null;
  }
}

export interface SseClient {
  readonly response: Response;
  readonly parser: SseParser;
  /** The next message (comments included), or null when the stream ended or `ms` passed. */
  next(ms: number): Promise<SseMessage | null>;
  /** Messages until `until` says stop (inclusive) or `ms` pass; comments skipped unless asked. */
  collect(
    until: (m: SseMessage, all: SseMessage[]) => boolean,
    ms: number,
    withComments?: boolean,
  ): Promise<SseMessage[]>;
  /** True once the server ended the stream. */
  readonly ended: boolean;
  close(): Promise<void>;
}

export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const parser = new SseParser();
  const queue: SseMessage[] = [];
  const decoder = new TextDecoder();
  const reader = response.body?.getReader() ?? null;
  let ended = reader === null;
  // One read in flight at a time: a read that outlives a timeout is awaited by the next call.
  let pending: ReturnType<NonNullable<typeof reader>['read']> | null = null;

  async function next(ms: number): Promise<SseMessage | null> {
    const until = Date.now() + ms;
    while (queue.length === 0 && !ended && reader) {
      pending ??= reader.read().catch(() => ({ done: true as const, value: undefined }));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>(
        (r) => (timer = setTimeout(() => r('timeout'), Math.max(1, until - Date.now()))),
      );
      const read = await Promise.race([pending, timeout]);
      clearTimeout(timer);
      if (read === 'timeout') return null;
      pending = null;
      if (read.done) ended = true;
      else queue.push(...parser.push(decoder.decode(read.value, { stream: true })));
    }
    return queue.shift() ?? null;
  }

  return {
    response,
    parser,
    next,
    get ended() {
      return ended && queue.length === 0;
    },
    async collect(until, ms, withComments = false) {
      const deadline = Date.now() + ms;
      const all: SseMessage[] = [];
      while (Date.now() < deadline) {
        const m = await next(deadline - Date.now());
        if (!m) break;
        if (m.event === 'comment' && !withComments) continue;
        all.push(m);
        if (until(m, all)) break;
      }
      return all;
    },
    async close() {
      controller.abort();
      await reader?.cancel().catch(() => undefined);
    },
  };
}
