/**
 * update-check step 6 (docs/image.md "update-check", issue "Proof" 6): a backup taken from the box
 * through the API restores onto a freshly flashed card, which comes up with the same settings, users,
 * grants, OID overrides and objects, keeps the old box's instance id (docs/backup.md "The instance id of a
 * restored box": the restored box *is* the old box on a new card), and ACKs the same device on the same
 * receiver. The backup goes on the boot partition beside vigil-setup.txt with `restore_passphrase`
 * (docs/first-boot.md "Restoring a backup"). The card is flashed from the image the check started with, so
 * the backup of the box on B (whose test migration is additive) restores onto an older Vigil by the store's
 * floor (docs/backup.md "Restoring"), as a replacement card flashed with the last image at hand would.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type CheckStart, prepareCard } from './card.js';
import type { Guest, poll as pollGuest } from './guest.js';
import { internalEvents } from './update-box.js';

export interface RestoreBox {
  readonly start: CheckStart;
  readonly image: string;
  readonly guest: Guest;
  /** The account whose events the box has ACKed: an object of the box. */
  readonly account: string;
  readonly figures: Record<string, string>;
  readonly step: <T>(name: string, run: () => Promise<T>) => Promise<T>;
  readonly poll: typeof pollGuest;
  readonly token: () => string;
  /** Logs in (as admin unless told); returns the token. */
  readonly login: (who?: string, secret?: string) => Promise<string>;
  readonly sendEvent: () => Promise<boolean>;
  readonly powerOff: () => Promise<void>;
  readonly powerOn: (disk: string) => void;
  readonly timeoutMs: number;
}

/** The settings sections compared before and after (GET /api/settings, secrets masked the same way). */
const SECTIONS = ['general', 'receivers', 'users', 'outputs', 'internal_events'] as const;
const OPERATOR = { id: 2, login: 'operator', password: `op-${randomBytes(9).toString('base64url')}` };
const GRANTS = ['device_control'];

interface Facts {
  readonly settings: Record<string, unknown>;
  readonly grants: string;
  /** What the box knows of the object (not its connection state, which the restart changes). */
  readonly object: Pick<
    ObjectItem,
    'id' | 'uid' | 'account' | 'oid' | 'override_oid' | 'receiver_id' | 'first_seen'
  > | null;
  readonly instanceId: string | null;
  readonly events: readonly { id: number; account: string }[];
}

interface ObjectItem {
  id: number;
  uid: string | null;
  account: string;
  oid: string;
  override_oid: string | null;
  receiver_id: number;
  first_seen: string;
}

async function json<T>(box: RestoreBox, method: string, path: string, body?: unknown): Promise<T> {
  const res = await box.guest.http(method, path, { token: box.token(), ...(body === undefined ? {} : { body }) });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text) as T;
}

async function facts(box: RestoreBox): Promise<Facts> {
  const settings = await json<Record<string, unknown>>(box, 'GET', '/api/settings');
  const grants = await json<{ scopes: string[] }>(box, 'GET', `/api/users/${OPERATOR.id}/grants`);
  const objects = await json<{ items: ObjectItem[] }>(box, 'GET', `/api/objects?account=${box.account}`);
  const system = await json<{ instance_id: string | null }>(box, 'GET', '/api/system');
  const events = await json<{ items: { id: number; account: string }[] }>(box, 'GET', '/api/events?limit=500');
  const o = objects.items.find((item) => item.account === box.account);
  return {
    settings: Object.fromEntries(SECTIONS.map((name) => [name, settings[name]])),
    grants: [...grants.scopes].sort().join(','),
    object: o
      ? {
          id: o.id,
          uid: o.uid,
          account: o.account,
          oid: o.oid,
          override_oid: o.override_oid,
          receiver_id: o.receiver_id,
          first_seen: o.first_seen,
        }
      : null,
    instanceId: system.instance_id,
    events: events.items.map(({ id, account }) => ({ id, account })),
  };
}

/** The backup's header, readable without the passphrase (docs/backup.md "File format"). */
function backupHeader(file: string): {
  instance_id: string;
  schema_version: number;
  readable_from?: number;
  journal: boolean;
} {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(12);
    readSync(fd, head, 0, 12, 0);
    if (head.subarray(0, 8).toString('latin1') !== 'VGLBKP01') throw new Error(`${file} is not a Vigil backup`);
    const header = Buffer.alloc(head.readUInt32BE(8));
    readSync(fd, header, 0, header.length, 12);
    return JSON.parse(header.toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

export async function restoreOntoFreshCard(box: RestoreBox): Promise<void> {
  const { guest, start, figures } = box;
  const passphrase = `restore-${randomBytes(12).toString('base64url')}`;
  const instanceId = `update-check-${randomBytes(6).toString('hex')}`;
  const vbk = join(start.work, 'vigil-backup.vbk');

  const before = await box.step('6a. state worth restoring: a second user with a grant, an OID override', async () => {
    const { users } = await json<{ users: Record<string, unknown>[] }>(box, 'GET', '/api/settings');
    const operator = {
      ...OPERATOR,
      token_time: 60,
      scopes: ['events', 'objects'],
      visible_receivers: { all: true, custom: [] },
    };
    await json(box, 'PUT', '/api/settings', { users: [...users.filter((u) => u.id !== OPERATOR.id), operator] });
    await json(box, 'PUT', `/api/users/${OPERATOR.id}/grants`, { scopes: GRANTS });
    const override = await guest.http('PUT', '/api/oid-override', {
      token: box.token(),
      body: { oid: box.account, new_override_oid: `9${box.account.slice(1)}` },
    });
    if (override.status !== 200) throw new Error(`PUT /api/oid-override: ${override.status} ${override.text}`);
    // The MySQL mirror assigns the instance id on its first run (docs/mysql-sync.md); this box has no
    // mirror, so the check stands in for it, as the gateway's user, in the store's meta table.
    await guest.ssh(
      `runuser -u vigil -- node -e "const D=require('/opt/vigil/node_modules/better-sqlite3');const d=new D('/var/lib/vigil/vigil.db');d.pragma('busy_timeout = 10000');d.prepare(\\"insert into meta (key, value) values ('instance_id', ?) on conflict (key) do update set value = excluded.value\\").run('${instanceId}')"`,
    );
    const f = await facts(box);
    if (!f.object || f.object.override_oid !== `9${box.account.slice(1)}` || f.grants !== GRANTS.join(','))
      throw new Error(`not in place: ${JSON.stringify({ object: f.object, grants: f.grants })}`);
    if (f.instanceId !== instanceId) throw new Error(`GET /api/system instance_id: ${f.instanceId}`);
    await box.login(OPERATOR.login, OPERATOR.password);
    return f;
  });

  await box.step('6b. backup through GET /api/system/backup (X-Vigil-Backup-Passphrase), then power off', async () => {
    const asked = Date.now();
    const res = await guest.download('/api/system/backup', vbk, box.token(), {
      'X-Vigil-Backup-Passphrase': passphrase,
    });
    if (res.status !== 200) throw new Error(`GET /api/system/backup: ${res.status} ${res.text}`);
    figures.backup_kib = (statSync(vbk).size / 1024).toFixed(0);
    figures.backup_s = ((Date.now() - asked) / 1000).toFixed(1);
    const header = backupHeader(vbk);
    if (header.instance_id !== instanceId) throw new Error(`the backup's instance id: ${header.instance_id}`);
    await box.powerOff();
    return `${figures.backup_kib} KiB in ${figures.backup_s} s; header: instance ${header.instance_id}, store version ${header.schema_version} readable from ${header.readable_from ?? '?'}, journal ${header.journal}`;
  });

  const restoredAt = await box.step(
    '6c. a freshly flashed card with vigil-setup.txt, the .vbk and restore_passphrase',
    async () => {
      const disk = join(start.work, 'disk-restore.img');
      prepareCard(box.image, disk, start, { restorePassphrase: passphrase }, [vbk]);
      box.powerOn(disk);
      return Date.now();
    },
  );

  await box.step('6d. the fresh card comes up healthy as the old box', async () => {
    await box.poll('GET /health 200 on the restored card', box.timeoutMs, () => guest.healthy(), 3000);
    figures.restore_boot_to_healthy_s = ((Date.now() - restoredAt) / 1000).toFixed(0);
    const boot = await box.poll('ssh', 180_000, () => guest.ssh('ls -1 /boot/firmware'));
    // docs/first-boot.md: after a successful restore the .vbk and the setup file are gone.
    const left = boot.split('\n').filter((name) => /\.vbk$|^vigil-setup\.txt$/i.test(name));
    if (left.length > 0) throw new Error(`still on the boot partition: ${left.join(', ')}`);
    const result = await guest.ssh('cat /boot/firmware/vigil-setup.result.txt');
    await box.login(); // the old box's admin password: the backup brings its accounts
    return `${figures.restore_boot_to_healthy_s} s from power-on to healthy; result file: ${result.split('\n').slice(0, 2).join(' / ')}`;
  });

  await box.step(
    '6e. same settings, users, grants, override, object and instance id; the device is ACKed',
    async () => {
      await box.login(OPERATOR.login, OPERATOR.password);
      const after = await facts(box);
      for (const name of SECTIONS) {
        const [was, is] = [JSON.stringify(before.settings[name]), JSON.stringify(after.settings[name])];
        if (was !== is) throw new Error(`settings.${name} differ:\n  before ${was}\n  after  ${is}`);
      }
      if (after.grants !== before.grants) throw new Error(`grants ${before.grants} -> ${after.grants}`);
      if (JSON.stringify(after.object) !== JSON.stringify(before.object))
        throw new Error(`object ${JSON.stringify(before.object)} -> ${JSON.stringify(after.object)}`);
      // docs/backup.md: a restore keeps the backup's instance id (the mirror sees the same box continue).
      if (after.instanceId !== instanceId) throw new Error(`instance id ${instanceId} -> ${after.instanceId}`);
      const started = (await internalEvents(guest, box.token())).find((t) => /restored from the backup of/.test(t));
      if (!started) throw new Error('no gateway_started event saying "restored from the backup of"');
      if (!(await box.sendEvent())) throw new Error(`an event from ${box.account} was not ACKed by the restored box`);
      const oldNewest = Math.max(0, ...before.events.map((e) => e.id));
      const newest = await box.poll('the event in /api/events', 30_000, async () => {
        const mine = (await facts(box)).events.filter((e) => e.account === box.account);
        return mine.length > 0 ? Math.max(...mine.map((e) => e.id)) : null;
      });
      // The journal's high-water mark travels in the backup (docs/backup.md): new ids go on after the old ones.
      if (newest <= oldNewest) throw new Error(`the new event has id ${newest}, the old box had reached ${oldNewest}`);
      return `${SECTIONS.join(', ')} equal; operator logs in, grants ${after.grants}; override ${after.object?.override_oid}; instance ${after.instanceId} kept; "${started}"; event ${newest} ACKed (ids go on after the old newest, ${oldNewest})`;
    },
  );
}
