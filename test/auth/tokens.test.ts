import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { isVigilError } from '../../src/core/errors.js';
import { INSTALLER_SUBJECT, MAX_IAT_SKEW_S, TokenService, parseSubject, userSubject } from '../../src/auth/tokens.js';

const SECRET_A = 'a'.repeat(32) + 'b'.repeat(32);
const SECRET_B = 'c'.repeat(64);
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

function setup(secret = SECRET_A) {
  const clock = new ManualClock(START);
  let current = secret;
  const tokens = new TokenService({ secret: () => current, clock });
  return { clock, tokens, setSecret: (s: string) => (current = s) };
}

const key = (s: string) => new TextEncoder().encode(s);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function rejected(tokens: TokenService, token: string): Promise<string> {
  try {
    await tokens.verifyToken(token);
  } catch (err) {
    assert.ok(isVigilError(err, 'AUTH_FAILED'), `expected AUTH_FAILED, got ${String(err)}`);
    return (err as Error).message;
  }
  assert.unreachable('token was accepted');
  return '';
}

test('an issued token carries exactly sub, scopes, jti, iat and exp and is HS256', async () => {
  const { tokens } = setup();
  const issued = await tokens.issueToken({
    sub: userSubject(7),
    scopes: ['settings', 'objects'],
    minutes: 90,
    now: START,
  });
  assert.equal(decodeProtectedHeader(issued.token), { alg: 'HS256', typ: 'JWT' });
  const claims = decodeJwt(issued.token);
  const jti = claims.jti!;
  assert.match(jti, /^[A-Za-z0-9_-]{22}$/);
  assert.equal(claims, {
    scopes: ['settings', 'objects'],
    sub: 'user:7',
    jti,
    iat: START / 1000,
    exp: START / 1000 + 90 * 60,
  });
  assert.equal(issued.expiresAt.toISOString(), '2026-01-01T13:30:00.000Z');
  assert.equal(await tokens.verifyToken(issued.token), {
    sub: 'user:7',
    scopes: ['settings', 'objects'],
    iat: START / 1000,
    exp: START / 1000 + 5400,
    epoch: 0,
    jti,
  });
  assert.is.not(
    decodeJwt((await tokens.issueToken({ sub: userSubject(7), scopes: [], minutes: 1, now: START })).token).jti,
    jti,
    'a fresh id per token',
  );
});

test('a token is valid until its exp second and rejected from then on', async () => {
  const { tokens, clock } = setup();
  const { token } = await tokens.issueToken({
    sub: INSTALLER_SUBJECT,
    scopes: ['restart_services'],
    minutes: 1,
    now: START,
  });
  clock.advance(59_999);
  assert.equal((await tokens.verifyToken(token)).sub, 'installer');
  clock.advance(1);
  assert.is(await rejected(tokens, token), 'token expired');
});

test('changing the secret invalidates tokens issued under the old one at once', async () => {
  const { tokens, setSecret } = setup();
  const { token } = await tokens.issueToken({ sub: 'user:1', scopes: [], minutes: 60 });
  setSecret(SECRET_B);
  assert.is(await rejected(tokens, token), 'token rejected');
  const fresh = await tokens.issueToken({ sub: 'user:1', scopes: [], minutes: 60 });
  assert.equal((await tokens.verifyToken(fresh.token)).sub, 'user:1');
});

test('alg none is rejected, with or without a signature part', async () => {
  const { tokens } = setup();
  const payload = b64({ sub: 'installer', scopes: ['settings'], iat: START / 1000, exp: START / 1000 + 600 });
  const header = b64({ alg: 'none', typ: 'JWT' });
  await rejected(tokens, `${header}.${payload}.`);
  await rejected(tokens, `${header}.${payload}`);
  const noneUpper = b64({ alg: 'None' });
  await rejected(tokens, `${noneUpper}.${payload}.`);
});

test('HS384 and HS512 tokens signed with the right secret are rejected: only HS256 is accepted', async () => {
  const { tokens } = setup();
  for (const alg of ['HS384', 'HS512']) {
    const token = await new SignJWT({ scopes: ['settings'] })
      .setProtectedHeader({ alg })
      .setSubject('installer')
      .setIssuedAt(START / 1000)
      .setExpirationTime(START / 1000 + 600)
      .sign(key(SECRET_A));
    await rejected(tokens, token);
  }
});

test('an RS256 token signed with a real RSA key is rejected, and so is RS256-labelled HMAC over the public key', async () => {
  const { tokens } = setup();
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const claims = { scopes: ['settings'] };
  const rs = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256' })
    .setSubject('installer')
    .setIssuedAt(START / 1000)
    .setExpirationTime(START / 1000 + 600)
    .sign(privateKey);
  await rejected(tokens, rs);
  // Algorithm confusion: an HS256 signature keyed with the public PEM, header saying RS256.
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const hs = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('installer')
    .setIssuedAt(START / 1000)
    .setExpirationTime(START / 1000 + 600)
    .sign(key(pem));
  const [, body, sig] = hs.split('.');
  await rejected(tokens, `${b64({ alg: 'RS256' })}.${body}.${sig}`);
});

test('a changed signature, a changed payload and a token signed with another secret are rejected', async () => {
  const { tokens } = setup();
  const { token } = await tokens.issueToken({ sub: 'user:2', scopes: ['settings'], minutes: 60 });
  const [h, p, s] = token.split('.') as [string, string, string];
  const flipped = (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
  await rejected(tokens, `${h}.${p}.${flipped}`);
  const escalated = b64({ ...decodeJwt(token), scopes: ['settings', 'users'] });
  await rejected(tokens, `${h}.${escalated}.${s}`);
  const other = await new TokenService({ secret: () => SECRET_B, clock: new ManualClock(START) }).issueToken({
    sub: 'user:2',
    scopes: [],
    minutes: 60,
  });
  await rejected(tokens, other.token);
});

test('malformed tokens are rejected without throwing anything but AUTH_FAILED', async () => {
  const { tokens } = setup();
  for (const bad of [
    '',
    'abc',
    'a.b',
    'a.b.c',
    '..',
    `${b64({ alg: 'HS256' })}.notjson.sig`,
    '%%%.%%%.%%%',
    'x'.repeat(9000),
  ]) {
    await rejected(tokens, bad);
  }
  await rejected(tokens, `{"alg":"HS256"}.${b64({ sub: 'installer' })}.x`);
});

test('tokens without sub, iat or exp, with scopes that are not a string array, or an unknown subject are rejected', async () => {
  const { tokens } = setup();
  const now = START / 1000;
  const sign = (payload: Record<string, unknown>, opts: { sub?: string; iat?: boolean; exp?: boolean } = {}) => {
    let jwt = new SignJWT(payload).setProtectedHeader({ alg: 'HS256' });
    if (opts.sub !== undefined) jwt = jwt.setSubject(opts.sub);
    if (opts.iat !== false) jwt = jwt.setIssuedAt(now);
    if (opts.exp !== false) jwt = jwt.setExpirationTime(now + 600);
    return jwt.sign(key(SECRET_A));
  };
  await rejected(tokens, await sign({ scopes: [] }));
  await rejected(tokens, await sign({ scopes: [] }, { sub: 'installer', iat: false }));
  await rejected(tokens, await sign({ scopes: [] }, { sub: 'installer', exp: false }));
  assert.is(await rejected(tokens, await sign({}, { sub: 'installer' })), 'token scopes must be an array of strings');
  await rejected(tokens, await sign({ scopes: 'settings' }, { sub: 'installer' }));
  await rejected(tokens, await sign({ scopes: ['settings', 1] }, { sub: 'installer' }));
  await rejected(tokens, await sign({ scopes: [] }, { sub: 'admin' }));
  await rejected(tokens, await sign({ scopes: [] }, { sub: 'user:01' }));
  await rejected(tokens, await sign({ scopes: [] }, { sub: 'user:' }));
  // A user token must carry an id (logout revokes by it); an installer token made before ids existed need not.
  assert.is(await rejected(tokens, await sign({ scopes: [] }, { sub: 'user:12' })), 'user token without id');
  await rejected(tokens, await sign({ scopes: [], jti: 7 }, { sub: 'user:12' }));
  await rejected(tokens, await sign({ scopes: [], jti: 'x'.repeat(65) }, { sub: 'user:12' }));
  assert.equal((await tokens.verifyToken(await sign({ scopes: [], jti: 'abc' }, { sub: 'user:12' }))).sub, 'user:12');
  assert.is((await tokens.verifyToken(await sign({ scopes: [] }, { sub: 'installer' }))).jti, null);
});

test('an empty or short secret neither issues nor accepts tokens', async () => {
  const good = setup();
  const { token } = await good.tokens.issueToken({ sub: 'installer', scopes: [], minutes: 5 });
  for (const secret of ['', 'short']) {
    const { tokens } = setup(secret);
    await rejected(tokens, token);
    try {
      await tokens.issueToken({ sub: 'installer', scopes: [], minutes: 5 });
      assert.unreachable('issued with a bad secret');
    } catch (err) {
      assert.ok(isVigilError(err, 'AUTH_FAILED'));
    }
  }
});

test('subjects: user:<id> and installer parse, nothing else does', () => {
  assert.equal(parseSubject('user:42'), { kind: 'user', userId: 42 });
  assert.equal(parseSubject('installer'), { kind: 'installer' });
  for (const bad of ['user:0', 'user:-1', 'user:4.2', 'User:1', 'installer ', '', 'user:1234567890123456']) {
    assert.is(parseSubject(bad), null, bad);
  }
});

test.run();

test('a token whose iat lies more than the allowed skew in the future is rejected', async () => {
  const { tokens } = setup();
  const sign = (iat: number) =>
    new SignJWT({ scopes: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user:1')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key(SECRET_A));
  const now = START / 1000;
  assert.is((await tokens.verifyToken(await sign(now + MAX_IAT_SKEW_S))).iat, now + MAX_IAT_SKEW_S);
  assert.is(await rejected(tokens, await sign(now + MAX_IAT_SKEW_S + 1)), 'token issued in the future');
  assert.is(await rejected(tokens, await sign(now + 86_400 * 365)), 'token issued in the future');
});

test('a user token carries its epoch; a malformed epoch is rejected', async () => {
  const { tokens } = setup();
  const issued = await tokens.issueToken({ sub: userSubject(3), scopes: [], minutes: 5, epoch: 4, now: START });
  assert.is(decodeJwt(issued.token).epoch, 4);
  assert.is((await tokens.verifyToken(issued.token)).epoch, 4);
  const now = START / 1000;
  for (const epoch of [-1, 1.5, '2', null]) {
    const token = await new SignJWT({ scopes: [], epoch })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user:3')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key(SECRET_A));
    assert.is(await rejected(tokens, token), 'token epoch malformed');
  }
});
