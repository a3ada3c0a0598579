/**
 * Issue #28.4: the stored MySQL password goes only where it was entered for. An update that
 * changes sqlhost, sqlport, sqluser, sql_tls_ca_file or lowers sql_tls_mode while sending the mask
 * (or no sqlpass) is refused on `database.sqlpass`, nothing is saved and the new host is never
 * dialled. The TLS fields are validated with their field paths.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { toPublicView } from '../../src/settings/public-view.js';
import { defaultSettings, type Settings } from '../../src/settings/schema.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';
import { startRogueMysql } from '../helpers/rogue-mysql.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeTlsFiles, type TlsFiles } from '../helpers/tls-files.js';
import { accepted, errorsOf, siteSettings, testEnv } from './support.js';

const STORED_PASS = 'Stored-Mysql-Pass-1';
const MASK = '********';
const AGAIN = '(the stored password is kept only for the same server, user and TLS settings)';

let tls: TlsFiles;
test.before(() => {
  tls = makeTlsFiles();
});
test.after(() => tls?.remove());

/** A configured site whose database section holds a password (as saved by an earlier update). */
function withDatabase(extra: Record<string, unknown> = {}): Settings {
  const s = siteSettings();
  return {
    ...s,
    database: { ...s.database, enabled: true, sqlhost: 'db.example', sqlport: 3306, sqlpass: STORED_PASS, ...extra },
  } as Settings;
}

test('pointing sqlhost at another server with the masked password is refused, nothing is saved, the server is never dialled', async () => {
  const dir = tempDir('vigil-db-cred-');
  const rogue = await startRogueMysql();
  const store = new Store(join(dir.path, 'vigil.db'), silentLogger);
  try {
    await store.start();
    await store.write.settings.save(withDatabase());
    const service = new SettingsService({
      store: store,
      env: defaultValidationEnv({ hash: async () => 'unused' }),
      logger: silentLogger,
    });
    await service.start();
    const before = structuredClone(service.current());
    // What a `settings` user sees, edited to name their own server; the mask is sent back as shown.
    const view = toPublicView(service.current()).database;
    assert.is(view.sqlpass, MASK);
    for (const database of [
      { ...view, sqlhost: '127.0.0.1', sqlport: rogue.port },
      { sqlhost: '127.0.0.1', sqlport: rogue.port }, // sqlpass left out keeps it just the same
    ]) {
      const result = await service.update({ database });
      assert.equal(result, {
        ok: false,
        errors: [`database.sqlpass: must be entered again when sqlhost, sqlport change ${AGAIN}`],
      });
    }
    assert.equal(service.current(), before);
    assert.equal(store.settings.load(), before);
    assert.is(rogue.received.length, 0, 'the connection test must not dial the new host');
    assert.is(rogue.recovered(), null);
  } finally {
    await rogue.close();
    await store.stop();
    dir.remove();
  }
});

test('sqlport, sqluser, sql_tls_ca_file and a lowered sql_tls_mode each need the password again', async () => {
  const cases: [Settings, Record<string, unknown>, string][] = [
    [withDatabase(), { sqlport: 3307 }, 'sqlport changes'],
    [withDatabase(), { sqluser: 'root' }, 'sqluser changes'],
    [withDatabase({ sql_tls_mode: 'verify' }), { sql_tls_mode: 'required' }, 'sql_tls_mode changes'],
    [withDatabase({ sql_tls_mode: 'required' }), { sql_tls_mode: 'disabled' }, 'sql_tls_mode changes'],
    [
      withDatabase({ sql_tls_mode: 'verify', sql_tls_ca_file: tls.caCert }),
      { sql_tls_ca_file: tls.wrongCaCert },
      'sql_tls_ca_file changes',
    ],
    [
      withDatabase({ sql_tls_mode: 'verify', sql_tls_ca_file: tls.caCert }),
      { sql_tls_ca_file: '' },
      'sql_tls_ca_file changes',
    ],
    // Switched off at the same time: a later "enable" with the mask would use the new host.
    [withDatabase(), { enabled: false, sqlhost: 'evil.example' }, 'sqlhost changes'],
  ];
  for (const [current, change, what] of cases) {
    for (const sqlpass of [{ sqlpass: MASK }, {}]) {
      const env = testEnv();
      assert.equal(
        await errorsOf({ database: { ...change, ...sqlpass } }, current, env),
        [`database.sqlpass: must be entered again when ${what} ${AGAIN}`],
        JSON.stringify(change),
      );
      assert.equal(env.databaseChecked, []);
    }
  }
});

test('with the password typed the same changes pass; changes that keep the destination keep the mask', async () => {
  const env = testEnv();
  const moved = await accepted(
    { database: { sqlhost: 'db2.example', sqluser: 'other', sqlpass: 'Typed-Again-2' } },
    withDatabase(),
    env,
  );
  assert.equal(
    [moved.database.sqlhost, moved.database.sqluser, moved.database.sqlpass],
    ['db2.example', 'other', 'Typed-Again-2'],
  );
  for (const change of [
    { sqldatabase: 'archive' }, // same server, same account, same channel
    { sqlport: 0 }, // 0 is 3306 (contract)
    { sql_tls_mode: 'verify' }, // raised
    { remove_events_age: 30, sqlhost: 'db.example' }, // unchanged values
  ]) {
    const next = await accepted({ database: { ...change, sqlpass: MASK } }, withDatabase(), env);
    assert.is(next.database.sqlpass, STORED_PASS, JSON.stringify(change));
  }
  // Nothing stored, nothing to protect.
  const empty = siteSettings();
  assert.equal(await errorsOf({ database: { sqlhost: 'db3.example', sqlpass: MASK } }, empty, env), []);
});

test('the TLS fields default to disabled and the system CAs, and are shown in the public view', () => {
  const d = defaultSettings().database;
  assert.equal([d.sql_tls_mode, d.sql_tls_ca_file], ['disabled', '']);
  const view = toPublicView(withDatabase({ sql_tls_mode: 'verify', sql_tls_ca_file: '/etc/vigil/db-ca.pem' })).database;
  assert.equal([view.sql_tls_mode, view.sql_tls_ca_file, view.sqlpass], ['verify', '/etc/vigil/db-ca.pem', MASK]);
});

test('TLS settings are validated with field paths, the CA file like the API key files', async () => {
  const dir = tempDir('vigil-db-ca-');
  try {
    mkdirSync(join(dir.path, 'a-dir'));
    writeFileSync(join(dir.path, 'not-pem.txt'), 'hello\n');
    writeFileSync(join(dir.path, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const at = 'database.sql_tls_ca_file';
    const cases: [Record<string, unknown>, string[]][] = [
      [{ sql_tls_mode: 'on' }, ['database.sql_tls_mode: must be one of "disabled", "required" or "verify"']],
      [{ sql_tls_mode: true }, ['database.sql_tls_mode: must be one of "disabled", "required" or "verify"']],
      [{ sql_tls_ca_file: 5 }, [`${at}: must be a string`]],
      [{ sql_tls_ca_file: '/x\n/y' }, [`${at}: must not contain control characters`]],
      [{ sql_tls_ca_file: join(dir.path, 'missing.pem') }, [`${at}: file does not exist`]],
      [{ sql_tls_ca_file: join(dir.path, 'a-dir') }, [`${at}: is a directory, not a PEM file`]],
      [{ sql_tls_ca_file: join(dir.path, 'not-pem.txt') }, [`${at}: is not a PEM file`]],
      [{ sql_tls_ca_file: tls.serverKey }, [`${at}: must be a PEM file of CA certificates`]],
      [{ sql_tls_ca_file: join(dir.path, 'broken.pem') }, [`${at}: is not a valid PEM certificate`]],
    ];
    for (const [database, expected] of cases) {
      const env = testEnv();
      assert.equal(
        await errorsOf(
          { database: { enabled: true, sqlpass: 'typed-pass', sql_tls_mode: 'verify', ...database } },
          undefined,
          env,
        ),
        expected,
      );
      assert.equal(env.databaseChecked, [], 'a section with a bad TLS field is not dialled');
    }
    const env = testEnv();
    const next = await accepted(
      { database: { enabled: true, sqlpass: 'typed-pass', sql_tls_mode: 'verify', sql_tls_ca_file: tls.caCert } },
      undefined,
      env,
    );
    assert.equal([next.database.sql_tls_mode, next.database.sql_tls_ca_file], ['verify', tls.caCert]);
    assert.equal(
      env.databaseChecked.map((db) => [db.sql_tls_mode, db.sql_tls_ca_file]),
      [['verify', tls.caCert]],
    );
  } finally {
    dir.remove();
  }
});

test('adding or moving a server in sql_servers with the masked password is refused; a listed duplicate is refused', async () => {
  const current = withDatabase({ sql_servers: [{ host: 'db2.example', port: 3306 }] });
  for (const sql_servers of [
    [{ host: 'db2.example', port: 3306 }, { host: 'rogue.example' }],
    [{ host: 'rogue.example', port: 3306 }],
    [],
  ]) {
    assert.equal(await errorsOf({ database: { sqlpass: MASK, sql_servers } }, current, testEnv()), [
      `database.sqlpass: must be entered again when sql_servers changes ${AGAIN}`,
    ]);
  }
  // The same list (port 0 = 3306) keeps the mask.
  assert.equal(
    await errorsOf(
      { database: { sqlpass: MASK, sql_servers: [{ host: 'db2.example', port: 0 }] } },
      current,
      testEnv(),
    ),
    [],
  );
  assert.equal(
    await errorsOf(
      {
        database: {
          sqlpass: 'typed-again',
          sql_servers: [{ host: 'DB.example' }, { host: 'db2.example' }, { host: 'db2.example', port: 0 }],
        },
      },
      current,
      testEnv(),
    ),
    [
      'database.sql_servers[0]: names a server already listed (sqlhost:sqlport or above)',
      'database.sql_servers[2]: names a server already listed (sqlhost:sqlport or above)',
    ],
  );
});

test.run();
