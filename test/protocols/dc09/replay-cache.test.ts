/**
 * The replay cache on its own (docs/dc09.md "Replays"): the key of a message, expiry after the
 * time window, and both bounds (entries per account oldest first, accounts least recently used
 * first). test/receivers/replay.test.ts covers it end to end through real sockets.
 */
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ParsedMessage } from '../../../src/protocols/dc09/message.js';
import { ReplayCache, replayKey } from '../../../src/protocols/dc09/replay-cache.js';

function message(over: Partial<ParsedMessage> = {}): ParsedMessage {
  return {
    token: 'SIA-DCS',
    encrypted: true,
    sequence: '0042',
    receiver: 'R1',
    line: 'L2',
    account: 'ab12',
    data: '#AB12|NBA001',
    cipherHex: null,
    extended: [],
    timestampText: '12:00:00,11-24-2026',
    timestamp: 0,
    ...over,
  } as ParsedMessage;
}

/** The key as docs/dc09.md "Replays" defines it: the parts, NUL-separated, fed to a SHA-256 hash one after the other. */
function streamedKey(msg: ParsedMessage): string {
  const digest = createHash('sha256');
  digest.update(`${msg.sequence}\u0000${msg.timestampText}\u0000`);
  digest.update(`${msg.token}\u0000${msg.receiver ?? ''}\u0000${msg.line ?? ''}\u0000${msg.data ?? ''}`);
  for (const field of msg.extended) digest.update(`\u0000${field.id}\u0000`).update(field.value);
  return digest.digest('base64');
}

const entry = (account: string, key: string) => ({ account, key });

test('the key is a SHA-256 of the sequence, the timestamp and the content, extended data and non-ASCII text included', () => {
  const plain = message();
  assert.equal(replayKey(plain), { account: 'AB12', key: streamedKey(plain) });
  const extended = message({
    receiver: undefined,
    line: undefined,
    extended: [
      { id: 'X', value: 'E012.3456' },
      { id: 'I', value: 'Tür offen' },
    ],
  });
  assert.equal(replayKey(extended)!.key, streamedKey(extended));
  assert.is.not(replayKey(extended)!.key, replayKey(message({ extended: [{ id: 'X', value: 'E012.3457' }] }))!.key);
});

test('the same content with another sequence number or timestamp is another message', () => {
  const key = replayKey(message())!.key;
  assert.is.not(replayKey(message({ sequence: '0043' }))!.key, key);
  assert.is.not(replayKey(message({ timestampText: '12:00:01,11-24-2026' }))!.key, key);
  // A part cannot move into its neighbour: the separators keep "0042" + "12:00:00…" apart from "004" + "212:00:00…".
  assert.is.not(replayKey(message({ sequence: '004', timestampText: '212:00:00,11-24-2026' }))!.key, key);
});

test('the key is one flat digest: 44 base64 characters, whatever the message holds', () => {
  assert.match(replayKey(message())!.key, /^[A-Za-z0-9+/]{43}=$/);
  assert.match(
    replayKey(message({ data: 'x'.repeat(400), extended: [{ id: 'I', value: 'y'.repeat(100) }] }))!.key,
    /^[A-Za-z0-9+/]{43}=$/,
  );
});

test('a message without a time-tested timestamp has no key', () => {
  assert.is(replayKey(message({ timestampText: null })), null);
});

test('an entry is a replay until the time window has passed', () => {
  const cache = new ReplayCache({ ttlMs: 1000 });
  assert.is(cache.seen(entry('A', 'k'), 0), false);
  cache.remember(entry('A', 'k'), 0);
  assert.is(cache.seen(entry('A', 'k'), 999), true);
  assert.is(cache.seen(entry('B', 'k'), 999), false, 'per account');
  assert.is(cache.seen(entry('A', 'k'), 1000), false);
  assert.is(cache.size(), 0, 'the expired entry is gone');
});

test('expired entries leave when the account remembers the next message', () => {
  const cache = new ReplayCache({ ttlMs: 1000 });
  for (let i = 0; i < 5; i++) cache.remember(entry('A', `k${i}`), i * 100);
  cache.remember(entry('A', 'late'), 1250);
  assert.is(cache.size(), 3, 'k0..k2 (expired at 1000, 1100, 1200) dropped; k3, k4 and late kept');
  assert.is(cache.seen(entry('A', 'k3'), 1250), true);
});

test('an account keeps at most perAccount entries, the oldest dropped first', () => {
  const cache = new ReplayCache({ ttlMs: 60_000, perAccount: 3 });
  for (let i = 0; i < 5; i++) cache.remember(entry('A', `k${i}`), i);
  assert.is(cache.size(), 3);
  assert.is(cache.seen(entry('A', 'k1'), 10), false);
  assert.is(cache.seen(entry('A', 'k2'), 10), true);
  // Remembered again, an entry moves to the end and outlives those remembered after it first.
  cache.remember(entry('A', 'k2'), 20);
  cache.remember(entry('A', 'k5'), 21);
  assert.is(cache.seen(entry('A', 'k3'), 22), false);
  assert.is(cache.seen(entry('A', 'k2'), 22), true);
});

test('over the account bound the least recently used accounts go, never the one just added', () => {
  const cache = new ReplayCache({ ttlMs: 60_000, accounts: 32 });
  for (let i = 0; i < 32; i++) cache.remember(entry(`A${i}`, 'k'), i);
  // A0..A3 are used again: now A4..A7 are the least recently used.
  for (let i = 0; i < 4; i++) cache.remember(entry(`A${i}`, 'k2'), 100 + i);
  cache.remember(entry('NEW', 'k'), 200);
  // 33 accounts: a sixteenth of the bound (2) dropped in one pass.
  assert.is(cache.accounts(), 31);
  assert.is(cache.seen(entry('A4', 'k'), 201), false);
  assert.is(cache.seen(entry('A5', 'k'), 201), false);
  assert.is(cache.seen(entry('A6', 'k'), 201), true);
  assert.is(cache.seen(entry('A0', 'k'), 201), true);
  assert.is(cache.seen(entry('NEW', 'k'), 201), true);
});

test('a bound of one account keeps the newest', () => {
  const cache = new ReplayCache({ ttlMs: 60_000, accounts: 1 });
  cache.remember(entry('A', 'k'), 0);
  cache.remember(entry('B', 'k'), 1);
  assert.is(cache.accounts(), 1);
  assert.is(cache.seen(entry('B', 'k'), 2), true);
  assert.is(cache.seen(entry('A', 'k'), 2), false);
});

test.run();
