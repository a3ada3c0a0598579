/**
 * channel-check step 2 (docs/image.md "channel-check"): every way a channel can fail is reported in
 * GET /api/system with its code and changes no slot — nothing published yet (404), 500, the server down,
 * a trickle, another CA's signature, another board, an expired manifest, a wave of 0 % (accepted, nothing
 * installed), then a replayed one, a bundle missing on the server and a truncated one (RAUC refuses
 * before it writes).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type ChannelTls, channelFacts, channelTls, checkNow, publish, publishRaw, versionOf } from './channel-box.js';
import { ChannelServer } from './channel-server.js';
import type { Guest, poll as pollGuest } from './guest.js';
import { describe, slotState, type SlotState } from './update-box.js';

export interface FailuresBox {
  readonly guest: Guest;
  readonly token: () => string;
  readonly step: <T>(name: string, run: () => Promise<T>) => Promise<T>;
  /** guest.ts's poll, failing at once when qemu died. */
  readonly poll: typeof pollGuest;
  readonly repo: string;
  /** The channel's web root, and the build dir with the signing keys. */
  readonly www: string;
  readonly out: string;
  readonly work: string;
  /** A good bundle the manifests name. */
  readonly bundle: string;
  readonly server: ChannelServer;
  readonly port: number;
  readonly tls: ChannelTls;
}

/** The boot state a failed or refused check must leave as it was. */
function same(before: SlotState, after: SlotState): boolean {
  return (
    after.booted === before.booted &&
    after.boot.BOOT_ORDER === before.boot.BOOT_ORDER &&
    after.boot.BOOT_A_LEFT === before.boot.BOOT_A_LEFT &&
    after.boot.BOOT_B_LEFT === before.boot.BOOT_B_LEFT &&
    after.boot.BOOT_B_TRIAL === before.boot.BOOT_B_TRIAL
  );
}

/** Runs the failures; returns the server (stopped and started again on its port in 2c). */
export async function channelFailures(box: FailuresBox): Promise<ChannelServer> {
  const { guest, step, repo, www, out, work, bundle, port, tls } = box;
  let server = box.server;
  const version = versionOf(bundle);
  /** A check that must fail with `code` and change nothing. */
  const refused = async (code: string) => {
    const before = await slotState(guest);
    const judged = await checkNow(guest, box.token());
    // The check answers once the manifest is judged; an install it started (a bundle missing on the
    // server, a truncated one) fails on its own time.
    const facts =
      judged.state === 'installing' || judged.state === 'checking'
        ? await box.poll(
            'the install to end',
            10 * 60_000,
            async () => {
              const f = await channelFacts(guest, box.token());
              return f.state !== 'installing' && f.state !== 'checking' ? f : null;
            },
            3000,
          )
        : judged;
    const after = await slotState(guest);
    if (facts.error?.code !== code)
      throw new Error(`expected ${code}, got ${JSON.stringify(facts.error ?? facts.decision)}`);
    const reported = await channelFacts(guest, box.token());
    if (reported.error?.code !== code) throw new Error(`GET /api/system does not report ${code}`);
    if (!same(before, after)) throw new Error(`changed: ${describe(before)} -> ${describe(after)}`);
    return `${code}: ${facts.error.message.slice(0, 140)}`;
  };
  await step('2a. nothing published yet: 404 reported, nothing changed', () => refused('HTTP_ERROR'));
  await step('2b. the server answers 500', async () => {
    publish(repo, www, { version, bundle, waves: ['0'] }, out);
    server.misbehave('/stable/channel.cms', { kind: 'status', status: 500 });
    const r = await refused('HTTP_ERROR');
    server.behave();
    return r;
  });
  await step('2c. the server is down', async () => {
    await server.stop();
    const r = await refused('UNREACHABLE');
    server = new ChannelServer({
      root: www,
      key: readFileSync(tls.key, 'utf8'),
      cert: readFileSync(tls.cert, 'utf8'),
      port,
    });
    await server.start();
    return r;
  });
  await step('2d. the server trickles (50 bytes/s): the fetch gives up after 30 s', async () => {
    server.misbehave('/stable/channel.cms', { kind: 'slow', bytesPerSecond: 50 });
    const r = await refused('TIMEOUT');
    server.behave();
    return r;
  });
  const now = Date.now();
  const manifest = (fields: Record<string, unknown>) => ({
    format: 'vigil-channel-1',
    compatible: 'vigil-rpi-arm64',
    serial: 10,
    issued_at: new Date(now - 3_600_000).toISOString(),
    expires_at: new Date(now + 86_400_000).toISOString(),
    version,
    bundle_url: basename(bundle),
    waves: [{ from: new Date(now - 3_600_000).toISOString(), percent: 100 }],
    ...fields,
  });
  const signer = { cert: join(out, 'keys', 'signer.pem'), key: join(out, 'keys', 'signer.key') };
  await step('2e. a manifest signed by another CA', async () => {
    const other = channelTls(join(work, 'other-ca')); // any certificate outside the keyring
    publishRaw(www, manifest({}), other.cert, other.key);
    return refused('BAD_SIGNATURE');
  });
  await step('2f. a manifest for another board', async () => {
    publishRaw(www, manifest({ compatible: 'vigil-rpi-armhf' }), signer.cert, signer.key);
    return refused('WRONG_COMPATIBLE');
  });
  await step('2g. an expired manifest', async () => {
    publishRaw(
      www,
      manifest({
        issued_at: new Date(now - 9 * 86_400_000).toISOString(),
        expires_at: new Date(now - 2 * 86_400_000).toISOString(),
      }),
      signer.cert,
      signer.key,
    );
    return refused('EXPIRED');
  });
  await step('2h. a wave of 0 %: accepted, nothing installed; then an older serial: REPLAYED', async () => {
    publish(repo, www, { version, bundle, waves: ['0'], serial: 1000 }, out);
    const facts = await checkNow(guest, box.token());
    if (facts.error || !/not for this box yet/.test(facts.decision ?? '')) throw new Error(JSON.stringify(facts));
    publish(repo, www, { version, bundle, serial: 999 }, out);
    return `${facts.decision}; ${await refused('REPLAYED')}`;
  });
  await step('2i. a bundle that is not on the server, and a truncated one: RAUC refuses before writing', async () => {
    publish(repo, www, { version, bundle, serial: 1001 }, out);
    const manifestJson = JSON.parse(readFileSync(join(www, 'stable', 'channel.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    publishRaw(www, { ...manifestJson, serial: 1002, bundle_url: 'missing.raucb' }, signer.cert, signer.key);
    const missing = await refused('INSTALL_FAILED');
    const whole = readFileSync(bundle);
    writeFileSync(join(www, 'stable', 'truncated.raucb'), whole.subarray(0, Math.floor(whole.length / 2)));
    publishRaw(www, { ...manifestJson, serial: 1003, bundle_url: 'truncated.raucb' }, signer.cert, signer.key);
    return `${missing}; ${await refused('INSTALL_FAILED')}`;
  });

  return server;
}
