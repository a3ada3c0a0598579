/**
 * Issue #28.4 at the HTTP edge: PUT /api/settings with the GET view's masked `sqlpass` and another
 * `sqlhost` is the contract's validation failure (400, plain text, one line on the field path) and
 * changes nothing; with the password typed it is accepted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';

const STORED = 'Stored-Mysql-Pass-9';
let h: Harness;
let admin: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
  const seeded = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { database: { enabled: true, sqlhost: 'db.example', sqlpass: STORED } },
  });
  assert.is(seeded.status, 200);
});
test.after.each(async () => {
  await h.close();
});

test('the masked password with another sqlhost is 400 on database.sqlpass and nothing changes', async () => {
  const view = (await (await call(h, 'GET', '/api/settings', { token: admin })).json()) as {
    database: Record<string, unknown>;
  };
  assert.is(view.database.sqlpass, '********');
  const before = h.store.settings.load();
  const res = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { database: { ...view.database, sqlhost: 'attacker.example' } },
  });
  await expectResponse(
    res,
    400,
    'database.sqlpass: must be entered again when sqlhost changes (the stored password is kept only for the same server, user and TLS settings)',
  );
  assert.equal(h.store.settings.load(), before);
  assert.is(h.settings.current().database.sqlhost, 'db.example');
  assert.is(h.settings.current().database.sqlpass, STORED);
});

test('with the password typed again the new host is accepted', async () => {
  const res = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { database: { sqlhost: 'db2.example', sqlpass: 'Typed-Again-3' } },
  });
  await expectResponse(res, 200, { success: true });
  assert.equal(
    [h.settings.current().database.sqlhost, h.settings.current().database.sqlpass],
    ['db2.example', 'Typed-Again-3'],
  );
});

test.run();
